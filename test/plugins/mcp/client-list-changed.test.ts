import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../../testing/index.ts';
import { bootMcp, fixtureServer, until } from './client-helpers.ts';

describe('mcp client: notifications/tools/list_changed', () => {
  it('registers a tool the server adds and unregisters one it removes; agents follow', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'fx_add_tool', input: { name: 'greet' } }] },
      'added',
      { toolCalls: [{ name: 'fx_greet' }] },
      'greeted',
      {
        toolCalls: [{ name: 'fx_redescribe_tool', input: { name: 'greet', description: 'Greets warmly.' } }],
      },
      'redescribed',
      { toolCalls: [{ name: 'fx_remove_tool', input: { name: 'greet' } }] },
      'removed',
    ]);
    const kernel = await bootMcp(
      { servers: { fx: fixtureServer() } },
      { config: { agents: { dev: { model, tools: ['fx_*'] } } } },
    );
    const agent = kernel.agent('dev');
    expect(kernel.registry.has('fx_greet')).toBe(false);
    await agent.run('add');
    await until(() => agent.tools.some((tool) => tool.name === 'fx_greet'), 'fx_greet to reach the agent');
    expect(kernel.registry.get('fx_greet')).toMatchObject({
      description: 'Says hello from greet.',
      permissions: ['mcp:fx'],
    });
    const greeted = await agent.run('greet');
    expect(greeted.toolCalls[0]).toMatchObject({ ok: true, output: 'hello from greet' });
    expect(
      kernel
        .service('mcp')
        .clients.get('fx')!
        .tools.map((tool) => tool.name),
    ).toContain('fx_greet');
    const before = kernel.registry.get('fx_greet');
    await agent.run('redescribe');
    await until(
      () => kernel.registry.get('fx_greet').description === 'Greets warmly.',
      'the new description',
    );
    await until(
      () => agent.tools.find((tool) => tool.name === 'fx_greet') !== before,
      'the agent to get the new tool',
    );
    expect(agent.tools.find((tool) => tool.name === 'fx_greet')!.description).toBe('Greets warmly.');
    await agent.run('remove');
    await until(() => !kernel.registry.has('fx_greet'), 'fx_greet to be unregistered');
    await until(() => !agent.tools.some((tool) => tool.name === 'fx_greet'), 'fx_greet to leave the agent');
    expect(kernel.registry.has('fx_echo')).toBe(true);
  });
});
