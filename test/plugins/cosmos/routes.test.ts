import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../../core/index.ts';
import cosmos, { RETRY_AFTER_SECONDS } from '../../../plugins/cosmos/index.ts';
import hubos from '../../../plugins/hubos/index.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.close();
  kernel = undefined;
});

/** A kernel with the cosmos and hubos plugins, its HubOS listening on a free port. */
async function serve(script: ScriptStep[] = [], maxAgents = 3) {
  const model = new ScriptedModel(script);
  kernel = await bootKernel({
    plugins: [cosmos({ maxAgents }), hubos({ port: 0, rateLimit: false })],
    config: { agents: { worker: { description: 'A worker', instructions: 'Work.', model } } },
  });
  const url = await kernel.service('hubos').serve();
  return { url, model, cosmos: kernel.service('cosmos') };
}

function send(url: string, method: string, body?: unknown): Promise<Response> {
  return fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

describe('Cosmos routes', () => {
  it('creates an agent (201) that then runs through POST /api/agents/:id/run', async () => {
    const { url, model } = await serve([{ text: 'Done it.', usage: { inputTokens: 4, outputTokens: 2 } }]);
    const created = await send(`${url}/api/cosmos/agents`, 'POST', {
      agentId: 'w-1',
      templateId: 'worker',
      instructions: 'Be brief.',
      metadata: { owner: 'ann' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/api/cosmos/agents/w-1');
    const body: Json = await created.json();
    expect(body).toMatchObject({
      id: 'w-1',
      template: 'worker',
      state: 'idle',
      runs: 0,
      description: 'A worker',
    });

    const run = await send(`${url}/api/agents/w-1/run`, 'POST', { input: 'go' });
    expect(run.status).toBe(200);
    expect(((await run.json()) as Json).text).toBe('Done it.');
    expect(model.requests[0]!.system).toBe('Be brief.');

    const one: Json = await (await fetch(`${url}/api/cosmos/agents/w-1`)).json();
    expect(one).toMatchObject({ id: 'w-1', runs: 1, usage: { inputTokens: 4, outputTokens: 2 } });
    const stats: Json = await (await fetch(`${url}/api/cosmos/stats`)).json();
    expect(stats).toMatchObject({ capacity: 3, count: 1, byTemplate: { worker: 1 }, totals: { created: 1 } });
  });

  it('lists with ?filter=, describes, deletes (404 when absent)', async () => {
    const { url } = await serve();
    for (const agentId of ['a-1', 'a-2', 'b-1'])
      expect((await send(`${url}/api/cosmos/agents`, 'POST', { agentId, templateId: 'worker' })).status).toBe(
        201,
      );
    const all: Json = await (await fetch(`${url}/api/cosmos/agents`)).json();
    expect(all.agents.map((a: Json) => a.id)).toEqual(['a-1', 'a-2', 'b-1']);
    const some: Json = await (await fetch(`${url}/api/cosmos/agents?filter=a-`)).json();
    expect(some.agents.map((a: Json) => a.id)).toEqual(['a-1', 'a-2']);

    expect((await fetch(`${url}/api/cosmos/agents/nope`)).status).toBe(404);
    const deleted = await send(`${url}/api/cosmos/agents/a-1`, 'DELETE');
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ deleted: 'a-1' });
    const again = await send(`${url}/api/cosmos/agents/a-1`, 'DELETE');
    expect(again.status).toBe(404);
    expect(((await again.json()) as Json).error.code).toBe('AGENT_NOT_FOUND');
    // A deleted agent is no longer served.
    expect((await send(`${url}/api/agents/a-1/run`, 'POST', { input: 'x' })).status).toBe(404);
  });

  it('answers 409 for a duplicate, 404 for an unknown template, 400 for a bad body, 503 with Retry-After when full', async () => {
    const { url } = await serve([], 1);
    const create = (body: unknown) => send(`${url}/api/cosmos/agents`, 'POST', body);
    expect((await create({ agentId: 'one', templateId: 'worker' })).status).toBe(201);

    const duplicate = await create({ agentId: 'one', templateId: 'worker' });
    expect(duplicate.status).toBe(409);
    expect(((await duplicate.json()) as Json).error.code).toBe('AGENT_EXISTS');

    const unknown = await create({ agentId: 'two', templateId: 'ghost' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as Json).error.code).toBe('TEMPLATE_NOT_FOUND');

    for (const bad of [
      { templateId: 'worker' },
      { agentId: 'has space', templateId: 'worker' },
      { agentId: 'x', templateId: 'worker', extra: 1 },
      '{nope',
    ]) {
      const response = await create(bad);
      expect(response.status).toBe(400);
    }

    const full = await create({ agentId: 'two', templateId: 'worker' });
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
    const error = ((await full.json()) as Json).error;
    expect(error.code).toBe('COSMOS_FULL');
    expect(error.message).toContain('1');
  });

  it('documents its routes in the OpenAPI document', async () => {
    const { url } = await serve();
    const doc: Json = await (await fetch(`${url}/api/openapi.json`)).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/cosmos/agents', '/api/cosmos/agents/{id}', '/api/cosmos/stats']),
    );
    expect(
      doc.paths['/api/cosmos/agents'].post.requestBody.content['application/json'].schema.required,
    ).toEqual(['agentId', 'templateId']);
  });
});
