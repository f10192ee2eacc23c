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
