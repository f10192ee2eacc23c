import { afterEach, describe, expect, it } from 'vitest';
import {
  createKernel,
  type FallbackModel,
  type Kernel,
  type KernelOptions,
  type Plugin,
  silentLogger,
} from '../../core/index.ts';
import defaultModel, { defaultModelRef } from '../../plugins/models/default-model.ts';
import offline from '../../plugins/models/offline.ts';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';
import { expectHubosError, expectHubosRejection } from '../core/helpers.ts';
import { makeTool, toolsPlugin } from './helpers.ts';

const kernels: Kernel[] = [];
async function boot(options: KernelOptions) {
  const kernel = await bootKernel({ logger: silentLogger, ...options });
  kernels.push(kernel);
  return kernel;
}

afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

/** A provider `fake` whose models are ScriptedModels named after the reference. */
function fakeProvider(built: ScriptedModel[] = []): Plugin {
  return {
    name: 'fake-models',
    apply(kernel) {
      kernel.hooks.registerModels.tap('fake-models', (models) =>
        models.register({
          id: 'fake',
          languageModel: (modelId) => {
            const model = new ScriptedModel([`answer from ${modelId}`], { modelId });
            built.push(model);
            return model;
          },
        }),
      );
    },
  };
}

describe('kernel agents: creation', () => {
  it('creates the agents of the config at boot, in order', async () => {
    const model = new ScriptedModel();
    const kernel = await boot({
      config: { agents: { one: { model }, two: { model, description: 'second' } } },
    });
    expect(kernel.listAgents().map((a) => a.id)).toEqual(['one', 'two']);
    expect(kernel.agent('two').spec).toMatchObject({ name: 'two', description: 'second' });
    expect(kernel.getAgent('one')).toBe(kernel.agent('one'));
    expect(kernel.getAgent('three')).toBeUndefined();
  });

  it('refuses a second agent with the same name', async () => {
    const model = new ScriptedModel();
    const kernel = await boot({ config: { agents: { helper: { model } } } });
    const error = await expectHubosRejection(kernel.createAgent({ name: 'helper', model }), 'AGENT_EXISTS');
    expect(error.message).toBe('an agent named "helper" already exists');
  });

  it('refuses an agentCreate tap that renames an agent onto an existing one', async () => {
    const model = new ScriptedModel();
    const kernel = await boot({ config: { agents: { helper: { model } } } });
    kernel.hooks.agentCreate.tap('rename', (spec) => ({ ...spec, name: 'helper' }));
    await expectHubosRejection(kernel.createAgent({ name: 'fresh', model }), 'AGENT_EXISTS');
  });

  it('fails boot for an agent with no model anywhere, saying how to fix it', async () => {
    const error = await expectHubosRejection(boot({ config: { agents: { writer: {} } } }), 'AGENT_INVALID');
    expect(error.message).toBe(
      'agent "writer" has no model: set agents.writer.model or the top-level "model" in agent.config.ts',
    );
    expect(error.details.agent).toBe('writer');
  });

  it('fails for a model reference no provider serves, naming the agent and the reference', async () => {
    const error = await expectHubosRejection(
      boot({ config: { agents: { writer: { model: 'nowhere:big-1' } } }, plugins: [fakeProvider()] }),
      'MODEL_NOT_FOUND',
    );
    expect(error.message).toContain('agent "writer"');
    expect(error.message).toContain('model "nowhere:big-1"');
    expect(error.message).toContain('registered: fake');
  });

  it('fails for a tools pattern that matches no registered tool, naming the pattern', async () => {
    const model = new ScriptedModel();
    const error = await expectHubosRejection(
      boot({
        config: { agents: { writer: { model, tools: ['notes_*', 'fs_*'] } } },
        plugins: [toolsPlugin([makeTool('notes_add')])],
      }),
      'AGENT_INVALID',
    );
    expect(error.message).toBe('agent "writer": no registered tool matches "fs_*" (registered: notes_add)');
    expect(error.details).toMatchObject({ agent: 'writer', pattern: 'fs_*' });
  });

  it('refuses createAgent before boot and after close', async () => {
    const model = new ScriptedModel();
    const fresh = createKernel({ logger: silentLogger });
    await expectHubosRejection(fresh.createAgent({ name: 'early', model }), 'KERNEL_STATE');
    const kernel = await bootKernel({});
    await kernel.close();
    await expectHubosRejection(kernel.createAgent({ name: 'late', model }), 'KERNEL_STATE');
  });
});

describe('kernel agents: lookup', () => {
  it('kernel.agent() throws AGENT_NOT_FOUND listing the agents', async () => {
    const model = new ScriptedModel();
    const kernel = await boot({ config: { agents: { alpha: { model }, beta: { model } } } });
    const error = expectHubosError(() => kernel.agent('nope'), 'AGENT_NOT_FOUND');
    expect(error.message).toBe('no agent named "nope" (agents: alpha, beta)');
    const empty = await boot({});
    expect(() => empty.agent('x')).toThrow('no agent named "x" (agents: none)');
  });
});

describe('kernel agents: models', () => {
  it('uses the config model for agents that name none, and the template model otherwise', async () => {
    const built: ScriptedModel[] = [];
    const own = new ScriptedModel(['own answer'], { modelId: 'mine' });
    const kernel = await boot({
      config: {
        model: 'fake:house-1',
        agents: { plain: {}, special: { model: own }, other: { model: 'fake:x-2' } },
      },
      plugins: [fakeProvider(built)],
    });
    expect(built.map((m) => m.modelId)).toEqual(['house-1', 'x-2']);
    // Each agent's model is a fallback chain (of one here): its dropped streams are retried.
    expect((kernel.agent('plain').model as FallbackModel).models).toEqual([built[0]]);
    expect(kernel.agent('plain').modelRef).toBe('scripted:house-1');
    expect((kernel.agent('special').model as FallbackModel).models[0]).toBe(own);
    expect((await kernel.agent('plain').run('hi')).text).toBe('answer from house-1');
    expect((await kernel.agent('special').run('hi')).text).toBe('own answer');
  });

  it('runs agents on the offline model by reference', async () => {
    const kernel = await boot({ config: { model: 'offline', agents: { demo: {} } }, plugins: [offline()] });
    expect(kernel.agent('demo').modelRef).toBe('offline');
    expect((await kernel.agent('demo').run('hello')).text).toContain('offline demo model');
  });
});

describe('default-model plugin', () => {
  it('picks the provider whose key is in the environment, else offline', () => {
    expect(defaultModelRef({})).toBe('offline');
    expect(defaultModelRef({ OPENAI_API_KEY: 'sk-test' })).toBe('openai:gpt-4.1-mini');
    expect(defaultModelRef({ OPENAI_BASE_URL: 'http://localhost:11434/v1' })).toBe('openai:gpt-4.1-mini');
    expect(defaultModelRef({ ANTHROPIC_API_KEY: 'sk-ant' })).toBe('anthropic:claude-sonnet-4-5');
    expect(defaultModelRef({ ANTHROPIC_API_KEY: 'sk-ant', OPENAI_API_KEY: 'sk-test' })).toBe(
      'openai:gpt-4.1-mini',
    );
    expect(defaultModelRef({ OPENAI_API_KEY: '' })).toBe('offline');
  });

  it('fills the config model from its env and keeps one the config sets', async () => {
    const filled = await boot({ plugins: [defaultModel({ ANTHROPIC_API_KEY: 'sk-ant' })] });
    expect(filled.config.model).toBe('anthropic:claude-sonnet-4-5');
    const kept = await boot({
      config: { model: 'fake:x' },
      plugins: [defaultModel({ OPENAI_API_KEY: 'k' })],
    });
    expect(kept.config.model).toBe('fake:x');
  });

  it('gives agents without a model the offline model when no key is set', async () => {
    const kernel = await boot({ config: { agents: { demo: {} } }, plugins: [offline(), defaultModel({})] });
    expect(kernel.agent('demo').model.provider).toBe('offline');
  });
});
