import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../core/config-schema.ts';
import type { FallbackModel } from '../../../core/index.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';
import { expectHubosError } from '../helpers.ts';

const FILE = '/project/agent.config.ts';

describe('model as a fallback chain, and rateLimits, in the config', () => {
  it('takes an array of references and model objects, on an agent and at the top level', () => {
    const config = validateConfig(
      {
        model: ['anthropic:claude-sonnet-4-5', 'openai:gpt-4.1'],
        agents: { a: { model: ['openai:gpt-4.1-mini', new ScriptedModel()] } },
        rateLimits: { openai: { concurrency: 4, tokensPerMinute: 200_000, requestsPerMinute: 500 } },
      },
      new Map(),
      FILE,
    );
    expect(config.model).toEqual(['anthropic:claude-sonnet-4-5', 'openai:gpt-4.1']);
  });

  it('refuses an empty chain, an empty reference and a bad limit, saying where', () => {
    const empty = expectHubosError(
      () => validateConfig({ model: [] } as never, new Map(), FILE),
      'CONFIG_INVALID',
    );
    expect(empty.message).toContain('model');
    const blank = expectHubosError(
      () => validateConfig({ agents: { a: { model: ['openai:x', ''] } } } as never, new Map(), FILE),
      'CONFIG_INVALID',
    );
    expect(blank.message).toContain('agents.a.model');
    const limit = expectHubosError(
      () => validateConfig({ rateLimits: { openai: { concurrency: 0 } } } as never, new Map(), FILE),
      'CONFIG_INVALID',
    );
    expect(limit.message).toContain('rateLimits.openai.concurrency');
    const typo = expectHubosError(
      () => validateConfig({ rateLimits: { openai: { concurency: 2 } } } as never, new Map(), FILE),
      'CONFIG_INVALID',
    );
    expect(typo.message).toContain('concurency');
  });

  it('an agent on a chain runs on its first model and is named after it', async () => {
    const first = new ScriptedModel(['from first'], { modelId: 'first' });
    const second = new ScriptedModel(['from second'], { modelId: 'second' });
    const kernel = await bootKernel({ config: { model: [first, second], agents: { a: {} } } });
    try {
      const agent = kernel.agent('a');
      expect(agent.modelRef).toBe('scripted:first');
      expect((agent.model as FallbackModel).models).toEqual([first, second]);
      expect((await agent.run('hi')).text).toBe('from first');
    } finally {
      await kernel.close();
    }
  });
});

describe('a chain given again', () => {
  it('is not wrapped twice (a sub-agent on its parent agent’s model)', async () => {
    const first = new ScriptedModel(['one', 'two'], { modelId: 'first' });
    const kernel = await bootKernel({ config: { agents: { a: { model: [first] } } } });
    try {
      const chain = kernel.agent('a').model;
      const again = await kernel.createAgent({ name: 'b', model: chain });
      expect(again.model).toBe(chain);
    } finally {
      await kernel.close();
    }
  });
});
