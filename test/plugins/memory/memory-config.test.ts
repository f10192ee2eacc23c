import { describe, expect, it } from 'vitest';
import { defaultPlugins } from '../../../plugins/index.ts';
import memory from '../../../plugins/memory/index.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';

describe('memory config', () => {
  it('names a bad agent memory config by its path', async () => {
    for (const bad of [{ recall: { limit: 0 } }, { working: 'yes' }, { forget: true }, true])
      await expect(
        bootKernel({
          plugins: [memory()],
          config: { agents: { helper: { model: new ScriptedModel(), memory: bad as never } } },
        }),
      ).rejects.toThrow(/agents\.helper\.memory/);
    await expect(
      bootKernel({ plugins: [memory()], config: { memory: { maxVectors: 10_000 } } }),
    ).rejects.toThrow(/memory\.maxVectors/);
  });

  it('gives the memory tools to agents with memory only, and refuses a bad userId', async () => {
    const kernel = await bootKernel({
      plugins: [memory()],
      config: {
        agents: {
          both: { model: new ScriptedModel(), memory: {} },
          recalls: { model: new ScriptedModel(), memory: { working: false } },
          none: { model: new ScriptedModel(), tools: ['*'] },
        },
      },
    });
    const names = (agent: string) =>
      kernel
        .agent(agent)
        .tools.map((tool) => tool.name)
        .sort();
    expect(names('both')).toEqual(['memory_recall', 'memory_update']);
    expect(names('recalls')).toEqual(['memory_recall']);
    expect(names('none')).not.toContain('memory_recall');
    await expect(kernel.agent('both').run('hi', { userId: '' })).rejects.toThrow(
      /userId must be 1 to 256 characters, none of them a control character/,
    );
    await kernel.close();
  });

  it('is on by default when an agent sets memory or the config has a memory key', () => {
    const named = (config: object) =>
      defaultPlugins(config).filter((option) => option instanceof Promise).length;
    expect(named({ agents: { a: { memory: {} } } })).toBe(named({}) + 1);
    expect(named({ memory: {} })).toBe(named({}) + 1);
    expect(named({ agents: { a: { memory: false } } })).toBe(named({}));
  });
});
