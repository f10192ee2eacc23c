import { describe, expect, it } from 'vitest';
import { type HubosConfig, isPlugin, type Plugin } from '../../../core/index.ts';
import { defaultPlugins } from '../../../plugins/defaults.ts';
import subagent, { GENERAL_PURPOSE, getSubagentHooks } from '../../../plugins/subagent/index.ts';
import { resolveLimits } from '../../../plugins/subagent/options.ts';
import { bootKernel, invokeTool, ScriptedModel } from '../../../testing/index.ts';
import { expectHubosRejection } from '../../core/helpers.ts';
import { bootLead, task } from './helpers.ts';

const typesPlugin = (name: string, types: Record<string, { description: string }>): Plugin => ({
  name,
  apply(kernel) {
    getSubagentHooks(kernel).registerTypes.tap(name, (registry) => {
      for (const [type, definition] of Object.entries(types)) registry.register(type, definition);
    });
  },
});

const enumOf = (kernel: { registry: { get(name: string): { inputSchema: unknown } } }) =>
  (kernel.registry.get('task').inputSchema as { properties: { subagent_type: { enum: string[] } } })
    .properties.subagent_type.enum;

describe('the subagent plugin', () => {
  it('is a default plugin when the config uses it, and does nothing for agents that do not select `task`', async () => {
    const names = async (config: HubosConfig) =>
      (await Promise.all<unknown>(defaultPlugins(config))).flatMap((p) => (isPlugin(p) ? [p.name] : []));
    expect(await names({})).not.toContain('subagent');
    expect(await names({ agents: { a: { tools: ['*'] } } })).not.toContain('subagent');
    expect(await names({ agents: { a: { tools: ['task'] } } })).toContain('subagent');
    expect(await names({ subagents: {} })).toContain('subagent');
    expect(await names({ task: { maxDepth: 2 } })).toContain('subagent');
    // Added by the config itself (with its options): not twice.
    expect(await names({ task: {}, plugins: [[subagent({ maxDepth: 2 })]] })).not.toContain('subagent');

    const model = new ScriptedModel(['hi']);
    const config: HubosConfig = {
      agents: { lead: { model, tools: ['task'] }, plain: { model, tools: ['filesystem_*'] } },
    };
    const kernel = await bootKernel({ plugins: defaultPlugins(config), config });
    try {
      expect(kernel.agent('lead').tools.map((tool) => tool.name)).toEqual(['task']);
      expect(kernel.agent('plain').tools.map((tool) => tool.name)).not.toContain('task');
      await kernel.agent('plain').run('hello');
      expect(model.requests[0]!.tools.map((tool) => tool.name)).not.toContain('task');
      expect(kernel.listAgents()).toHaveLength(2);
    } finally {
      await kernel.close();
    }
  });

  it('takes types from plugins and config (config wins), general-purpose first', async () => {
    const { kernel } = await bootLead({
      plugins: [
        typesPlugin('p1', {
          reviewer: { description: 'from the plugin' },
          tester: { description: 'Tests.' },
        }),
      ],
      config: { subagents: { reviewer: { description: 'from the config' } } },
    });
    expect(enumOf(kernel)).toEqual([GENERAL_PURPOSE, 'reviewer', 'tester']);
    expect(kernel.registry.get('task').description).toContain('- reviewer: from the config');
    expect(kernel.inspect().hooks['subagent.registerTypes']).toEqual([
      expect.objectContaining({ name: 'p1', plugin: 'p1' }),
    ]);
  });

  it('lets the config replace general-purpose', async () => {
    const model = new ScriptedModel(['custom answer']);
    const { agent } = await bootLead({
      config: { subagents: { [GENERAL_PURPOSE]: { description: 'Mine.', instructions: 'Custom.', model } } },
      script: [{ toolCalls: [task('x')] }, 'ok'],
    });
    await agent.run('go');
    expect(model.requests[0]!.system).toBe('Custom.');
    expect(model.requests[0]!.tools).toEqual([]);
  });

  it('fails startup when two plugins register the same type, naming the plugin', async () => {
    const error = await expectHubosRejection(
      bootKernel({
        plugins: [
          subagent(),
          typesPlugin('p1', { dup: { description: 'a' } }),
          typesPlugin('p2', { dup: { description: 'b' } }),
        ],
      }),
      'AGENT_EXISTS',
    );
    expect(error.message).toMatch(
      /plugin "p2" failed in hook "subagent.registerTypes": a sub-agent type named "dup"/,
    );
  });

  it('rejects a plugin type without a description', async () => {
    const bad: Plugin = {
      name: 'bad',
      apply(kernel) {
        getSubagentHooks(kernel).registerTypes.tap('bad', (types) => types.register('x', {} as never));
      },
    };
    const error = await expectHubosRejection(bootKernel({ plugins: [subagent(), bad] }), 'AGENT_INVALID');
    expect(error.message).toContain('sub-agent type "x": missing required property "description"');
  });

  it('validates its config keys', async () => {
    await expect(
      bootKernel({ plugins: [subagent()], config: { task: { maxDepht: 2 } } as never }),
    ).rejects.toThrow('unknown property "task.maxDepht"');
    await expect(
      bootKernel({
        plugins: [subagent()],
        config: { subagents: { 'bad name': { description: 'x' } } } as never,
      }),
    ).rejects.toThrow(/CONFIG_INVALID|invalid config/);
    await expect(
      bootKernel({ plugins: [subagent()], config: { subagents: { x: { tools: ['a'] } } } as never }),
    ).rejects.toThrow('missing required property "subagents.x.description"');
  });

  it("fails startup when a type's tools or model name nothing registered", async () => {
    const tools = await expectHubosRejection(
      bootKernel({
        plugins: [subagent()],
        config: { subagents: { r: { description: 'R.', tools: ['websarch'] } } },
      }),
      'AGENT_INVALID',
    );
    expect(tools.message).toContain('sub-agent type "r": no registered tool matches "websarch"');
    const model = await expectHubosRejection(
      bootKernel({
        plugins: [subagent()],
        config: { subagents: { r: { description: 'R.', model: 'nope:x' } } },
      }),
      'MODEL_NOT_FOUND',
    );
    expect(model.message).toContain('sub-agent type "r": no model provider "nope"');
  });

  it('the options win over the config `task` key, which wins over the defaults', () => {
    expect(resolveLimits({ maxDepth: 2, timeoutMs: 5 }, { timeoutMs: 7 })).toEqual({
      maxDepth: 2,
      timeoutMs: 7,
      maxSteps: 25,
      maxAnswerChars: 10_000,
      forwardEvents: false,
    });
  });

  it('refuses a call that does not come from an agent of the kernel', async () => {
    const { kernel } = await bootLead();
    const result = await invokeTool(kernel.registry.get('task'), {
      description: 'x',
      subagent_type: GENERAL_PURPOSE,
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'TOOL_FAILED' } });
    expect(!result.ok && result.error.message).toContain('there is no agent "test-agent"');
  });
});
