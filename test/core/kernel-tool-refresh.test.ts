import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel, KernelOptions, ModelRequest, Plugin, Registry } from '../../core/index.ts';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';
import { makeTool } from '../agent/helpers.ts';

const kernels: Kernel[] = [];
async function boot(options: KernelOptions) {
  const kernel = await bootKernel(options);
  kernels.push(kernel);
  return kernel;
}

afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

/** Resolves once `check` holds (polling), or fails after `ms`. */
async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A plugin that hands out the registry and reserves `prefix` during registerTools, like a source not up yet. */
function lateSource(prefix: string, out: { registry?: Registry; release?: () => void }): Plugin {
  return {
    name: 'late-source',
    apply(kernel) {
      kernel.hooks.registerTools.tap('late-source', (registry) => {
        out.registry = registry;
        out.release = registry.reserve(prefix, 'late-source');
      });
    },
  };
}

const names = (kernel: Kernel, agent: string) => kernel.agent(agent).tools.map((tool) => tool.name);

describe('kernel: tools that come and go', () => {
  it('boots an agent naming tools under a reserved prefix, and gives them to it once registered', async () => {
    const source: { registry?: Registry; release?: () => void } = {};
    const model = new ScriptedModel(['done']);
    const kernel = await boot({
      plugins: [lateSource('gh_', source)],
      config: { agents: { dev: { model, tools: ['gh_*', 'gh_issue'] }, other: { model, tools: ['*'] } } },
    });
    expect(names(kernel, 'dev')).toEqual([]);
    source.registry!.registerBatch([makeTool('gh_issue'), makeTool('gh_pr'), makeTool('misc')]);
    source.release!();
    await until(() => names(kernel, 'dev').length === 2);
    expect(names(kernel, 'dev')).toEqual(['gh_issue', 'gh_pr']);
    await until(() => names(kernel, 'other').length === 3);
    await kernel.agent('dev').run('hi');
    expect(model.requests[0]!.tools!.map((tool) => tool.name)).toEqual(['gh_issue', 'gh_pr']);
  });

  it('takes unregistered tools away from live agents, and agents created later see the new set', async () => {
    const source: { registry?: Registry } = {};
    const kernel = await boot({
      plugins: [lateSource('x_', source)],
      config: { agents: { a: { model: new ScriptedModel(), tools: ['x_*'] } } },
    });
    source.registry!.registerBatch([makeTool('x_one'), makeTool('x_two')]);
    await until(() => names(kernel, 'a').length === 2);
    source.registry!.unregister('x_one');
    await until(() => names(kernel, 'a').length === 1);
    expect(names(kernel, 'a')).toEqual(['x_two']);
    const later = await kernel.createAgent({ name: 'b', model: new ScriptedModel(), tools: ['x_*'] });
    expect(later.tools.map((tool) => tool.name)).toEqual(['x_two']);
  });

  it('runs resolveTools again, once per agent for a burst of changes', async () => {
    const source: { registry?: Registry } = {};
    let resolved = 0;
    const hideSecrets: Plugin = {
      name: 'hide-secrets',
      apply(kernel) {
        kernel.hooks.resolveTools.tap('hide-secrets', (ctx) => {
          resolved++;
          return { ...ctx, tools: ctx.tools.filter((tool) => !tool.name.endsWith('_secret')) };
        });
      },
    };
    const kernel = await boot({
      plugins: [lateSource('y_', source), hideSecrets],
      config: { agents: { a: { model: new ScriptedModel(), tools: ['y_*'] } } },
    });
    expect(resolved).toBe(1);
    for (let i = 0; i < 10; i++) source.registry!.register(makeTool(`y_${i}`));
    source.registry!.register(makeTool('y_secret'));
    await until(() => names(kernel, 'a').length === 10);
    // Let anything else that was (wrongly) scheduled run before counting.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(resolved).toBe(2);
    expect(names(kernel, 'a')).not.toContain('y_secret');
  });

  it('lets a run in progress keep the tools it started with', async () => {
    const source: { registry?: Registry } = {};
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const inFirstCall = new Promise<void>((resolve) => {
      started = resolve;
    });
    const requests: ModelRequest[] = [];
    const model = new ScriptedModel([
      async (request) => {
        requests.push(request);
        started();
        await gate;
        return { toolCalls: [{ name: 'z_old' }] };
      },
      (request) => {
        requests.push(request);
        return 'first done';
      },
      (request) => {
        requests.push(request);
        return 'second done';
      },
    ]);
    const kernel = await boot({
      plugins: [lateSource('z_', source)],
      config: { agents: { a: { model, tools: ['z_*'] } } },
    });
    source.registry!.register(makeTool('z_old'));
    await until(() => names(kernel, 'a').length === 1);
    const first = kernel.agent('a').run('go');
    await inFirstCall;
    source.registry!.register(makeTool('z_new'));
    await until(() => names(kernel, 'a').length === 2);
    release();
    expect((await first).text).toBe('first done');
    await kernel.agent('a').run('again');
    const seen = requests.map((request) => request.tools!.map((tool) => tool.name));
    expect(seen).toEqual([['z_old'], ['z_old'], ['z_old', 'z_new']]);
  });

  it('refreshes an agent whose creation overlapped a registry change', async () => {
    const source: { registry?: Registry } = {};
    let once = true;
    const slowResolve: Plugin = {
      name: 'slow-resolve',
      apply(kernel) {
        kernel.hooks.resolveTools.tapPromise('slow-resolve', async (ctx) => {
          if (once && ctx.agent.name === 'late') {
            once = false;
            source.registry!.register(makeTool('v_added'));
            // The refresh this change schedules runs while the agent is still being built.
            await new Promise((resolve) => setTimeout(resolve, 30));
          }
          return ctx;
        });
      },
    };
    const kernel = await boot({ plugins: [lateSource('v_', source), slowResolve] });
    const agent = await kernel.createAgent({ name: 'late', model: new ScriptedModel(), tools: ['v_*'] });
    await until(() => agent.tools.length === 1);
    expect(agent.tools.map((tool) => tool.name)).toEqual(['v_added']);
  });
});
