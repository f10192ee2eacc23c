import { afterEach, expect, it } from 'vitest';
import type { Kernel } from '../../../core/index.ts';
import hubos from '../../../plugins/hubos/index.ts';
import { servedTools } from '../../../plugins/mcp/server/served-tools.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

it('an internal agent works for others: HubOS and MCP do not serve it, before or after boot', async () => {
  const model = new ScriptedModel([]);
  const kernel = await bootKernel({
    plugins: [hubos()],
    config: { agents: { front: { model }, helper: { model, internal: true } } },
  });
  kernels.push(kernel);
  await kernel.createAgent({ name: 'later-helper', model, internal: true });
  await kernel.createAgent({ name: 'later-front', model });
  const server = kernel.service('hubos');
  await server.init();
  const listed = (await (await server.app.request('/api/agents')).json()) as { agents: { name: string }[] };
  expect(listed.agents.map((agent) => agent.name).sort()).toEqual(['front', 'later-front']);
  expect((await server.app.request('/api/agents/helper')).status).toBe(404);
  const asked = [...servedTools(kernel, { agents: ['*'] }).keys()].filter((name) => name.startsWith('ask_'));
  expect(asked.sort()).toEqual(['ask_front', 'ask_later-front']);
});
