import { afterEach, expect, it } from 'vitest';
import type { Kernel } from '../../core/index.ts';
import { notes } from '../../examples/notes-plugin.ts';
import hubos from '../../plugins/hubos/index.ts';
import { bootKernel, invokeTool } from '../../testing/index.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

it("the repo config's notes plugin: tools, a service, its own codes and documented routes", async () => {
  const kernel = await bootKernel({ plugins: [notes({ maxNotes: 1 }), hubos()] });
  kernels.push(kernel);
  const add = kernel.registry.get('notes_add');
  await invokeTool(add, { title: 'idea', text: 'ship it' }, { store: kernel.store });
  const full = await invokeTool(add, { title: 'another', text: 'x' }, { store: kernel.store });
  expect(JSON.stringify(full)).toContain('the notebook is full (1 notes)');
  expect(await kernel.service('notes').titles()).toEqual(['idea']);

  const server = kernel.service('hubos');
  await server.init();
  expect(await (await server.app.request('/api/notes')).json()).toEqual({ titles: ['idea'] });
  expect(await (await server.app.request('/api/notes/idea')).json()).toEqual({
    title: 'idea',
    text: 'ship it',
  });
  const missing = await server.app.request('/api/notes/nope');
  expect(missing.status).toBe(404);
  expect(await missing.json()).toEqual({
    error: { code: 'NOTE_NOT_FOUND', message: 'no note titled "nope"' },
  });
  const doc = (await (await server.app.request('/api/openapi.json')).json()) as {
    paths: Record<string, unknown>;
  };
  expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/notes', '/api/notes/{title}']));
});

it('the notes plugin: structured and rich results, a confirmation question, resources and a prompt', async () => {
  const kernel = await bootKernel({ plugins: [notes()] });
  kernels.push(kernel);
  const env = { store: kernel.store };
  await invokeTool(kernel.registry.get('notes_add'), { title: 'plan', text: 'ship on Friday' }, env);

  expect(await invokeTool(kernel.registry.get('notes_list'), {}, env)).toEqual({
    ok: true,
    output: { titles: ['plan'] },
  });
  const shown = await invokeTool(kernel.registry.get('notes_show'), { title: 'plan' }, env);
  expect(shown).toMatchObject({
    ok: true,
    content: [
      { type: 'text', text: 'The note "plan":' },
      { type: 'resource', resource: { uri: 'notes://plan', text: 'ship on Friday' } },
    ],
  });

  // The question is answered by whoever the surface offers: here the test, as a human declining.
  const forget = kernel.registry.get('notes_forget');
  const asked: string[] = [];
  const declined = await invokeTool(
    forget,
    { title: 'plan' },
    {
      ...env,
      elicit: async (request) => {
        asked.push(request.message);
        return { action: 'decline' };
      },
    },
  );
  expect(declined).toEqual({ ok: true, output: { deleted: false, why: 'the user kept it' } });
  expect(asked).toEqual(['Delete the note "plan"?']);
  // Nobody to ask (invokeTool without elicit): the tool fails, saying why; the note stays.
  const nobody = await invokeTool(forget, { title: 'plan' }, env);
  expect(nobody).toMatchObject({
    ok: false,
    error: { message: expect.stringContaining('no human can be asked') },
  });
  expect(await kernel.service('notes').titles()).toEqual(['plan']);

  const match = kernel.resources.find('notes://plan');
  expect(match?.kind).toBe('template');
  if (match?.kind !== 'template') throw new Error('notes://plan should match the notes template');
  const ctx = { sandbox: kernel.sandbox, store: kernel.store, signal: new AbortController().signal };
  expect(await match.template.read('notes://plan', match.variables, ctx)).toEqual([
    { uri: 'notes://plan', mimeType: 'text/plain', text: 'ship on Friday' },
  ]);
  expect(await match.template.list?.(ctx)).toEqual([
    { uri: 'notes://plan', name: 'plan', mimeType: 'text/plain' },
  ]);
  expect(await match.template.complete?.title?.('pl', { arguments: {} })).toEqual(['plan']);

  const review = await kernel.prompts.get('notes_review')?.get({ topic: 'dates' }, ctx);
  expect(review?.messages[0]?.content).toEqual({
    type: 'text',
    text: 'Review my notes about dates. Titles: plan.',
  });

  const accepted = await invokeTool(
    forget,
    { title: 'plan' },
    {
      ...env,
      elicit: async () => ({ action: 'accept', content: { confirm: true } }),
    },
  );
  expect(accepted).toEqual({ ok: true, output: { deleted: true } });
  expect(await kernel.service('notes').titles()).toEqual([]);
});

it('the notes plugin: a Zod tool (notes_find) and Zod-checked options', async () => {
  const kernel = await bootKernel({ plugins: [notes()] });
  kernels.push(kernel);
  const env = { store: kernel.store };
  await invokeTool(kernel.registry.get('notes_add'), { title: 'plan', text: 'ship on Friday' }, env);
  await invokeTool(kernel.registry.get('notes_add'), { title: 'groceries', text: 'milk' }, env);
  const find = kernel.registry.get('notes_find');
  // What the model sees: JSON Schema derived from the Zod schema, descriptions and defaults included.
  expect(find.inputSchema).toMatchObject({
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, description: 'Words to look for, in any case' },
      limit: { type: 'integer', default: 10, maximum: 50 },
    },
    required: ['query'],
    additionalProperties: false,
  });
  expect(await invokeTool(find, { query: '  FRIDAY ' }, env)).toEqual({
    ok: true,
    output: { titles: ['plan'] },
  });
  const invalid = await invokeTool(find, { query: 'x', limit: 0 }, env);
  expect(invalid).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
  expect(invalid.ok ? '' : invalid.error.message).toContain('"limit"');

  expect(() => notes({ maxNotes: 0 })).toThrow(/plugin "notes": option "maxNotes"/);
  expect(() => notes({ maxNote: 5 } as never)).toThrow(/unknown option "maxNote"/);
});
