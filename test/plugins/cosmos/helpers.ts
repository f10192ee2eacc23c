import { afterEach } from 'vitest';
import {
  type Bus,
  type HubosConfig,
  type Kernel,
  type KernelOptions,
  LocalBus,
  type Plugin,
} from '../../../core/index.ts';
import cosmos, { type CosmosConfig } from '../../../plugins/cosmos/index.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

export interface Setup {
  script?: ScriptStep[];
  cosmos?: CosmosConfig;
  plugins?: Plugin[];
  config?: HubosConfig;
  kernel?: Omit<KernelOptions, 'plugins' | 'config'>;
}

/** A kernel with the cosmos plugin and two templates (`worker`, `writer`) on one ScriptedModel; closed after each test. */
export async function bootCosmos(setup: Setup = {}) {
  const model = new ScriptedModel(setup.script ?? []);
  const kernel = await bootKernel({
    ...setup.kernel,
    plugins: [cosmos(), ...(setup.plugins ?? [])],
    config: {
      ...setup.config,
      cosmos: setup.cosmos ?? {},
      agents: {
        worker: { description: 'A worker', instructions: 'Work.', model },
        writer: { description: 'A writer', instructions: 'Write.', model, metadata: { team: 'docs' } },
      },
    },
  });
  kernels.push(kernel);
  return { kernel, model, cosmos: kernel.service('cosmos') };
}

/** Resolves once `check` holds (polling), or fails after `ms`. */
export async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A LocalBus that says it is shared: kernels in one process that hear each other, as instances on Redis do. */
export function sharedLocalBus(bus: Bus = new LocalBus()): Bus {
  return new Proxy(bus, {
    get: (target, property) => {
      if (property === 'shared') return true;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
