// RunOptions.model: one run on another model than its agent's, resolved by the kernel.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent, Kernel, Plugin } from '../../core/index.ts';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';
import { expectHubosRejection } from '../core/helpers.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

/** A provider `lab` whose models are ScriptedModels answering with their name. */
const lab: Plugin = {
  name: 'lab-models',
  apply(kernel) {
    kernel.hooks.registerModels.tap('lab-models', (models) =>
      models.register({
        id: 'lab',
        languageModel: (modelId) => new ScriptedModel([`answer from ${modelId}`], { modelId }),
      }),
    );
  },
};

async function boot() {
  const own = new ScriptedModel(['own answer'], { modelId: 'own' });
  const other = new ScriptedModel(['from the other agent'], { modelId: 'other' });
  const kernel = await bootKernel({
    plugins: [lab],
    config: { agents: { helper: { model: own }, writer: { model: other } } },
  });
  kernels.push(kernel);
  return { kernel, own, other };
}

describe('RunOptions.model', () => {
  it("runs on a model of the kernel's registry: run-start and the answer are that model's", async () => {
    const { kernel, own } = await boot();
    const events: AgentEvent[] = [];
    const result = await kernel
      .agent('helper')
      .run('hi', { model: 'lab:big', onEvent: (e) => events.push(e) });
    expect(result.text).toBe('answer from big');
    expect(events[0]).toMatchObject({ type: 'run-start', model: 'lab:big' });
    expect(own.requests).toHaveLength(0);
  });

  it('runs on the model another agent of the kernel runs on (one given as an object), or on its own', async () => {
    const { kernel, own, other } = await boot();
    const helper = kernel.agent('helper');
    expect((await helper.run('hi', { model: 'scripted:other' })).text).toBe('from the other agent');
    expect(other.requests).toHaveLength(1);
    expect((await helper.run('hi', { model: 'scripted:own' })).text).toBe('own answer');
    expect(own.requests).toHaveLength(1);
  });

  it('refuses a model no provider knows before the run starts (MODEL_NOT_FOUND, no event)', async () => {
    const { kernel } = await boot();
    const events: AgentEvent[] = [];
    await expectHubosRejection(
      kernel.agent('helper').run('hi', { model: 'nowhere:x', onEvent: (e) => events.push(e) }),
      'MODEL_NOT_FOUND',
    );
    expect(events).toEqual([]);
  });
});
