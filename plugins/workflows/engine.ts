import { type Instance, type KernelView, RunEngine } from '../../core/index.ts';

const own = new WeakMap<KernelView, RunEngine>();

/**
 * The run engine a kernel's workflow runs are runs of: HubOS's (`hubos.runs`) when the kernel
 * has HubOS, so they are listed, followed and cancelled like every other run; else one of the
 * kernel's own on its store, bus and instance.
 */
export function workflowEngine(kernel: KernelView): RunEngine {
  if (kernel.hasService('hubos')) return kernel.service('hubos').runs;
  let engine = own.get(kernel);
  if (!engine) {
    engine = new RunEngine({
      store: kernel.store,
      bus: kernel.bus,
      instance: kernel.instance,
      // It runs workflows only: a queued agent run names an agent HubOS would serve.
      resolveAgent: () => undefined,
      onError: (message) => kernel.logger.warn(message),
      retention: kernel.config.runs?.retention,
    });
    own.set(kernel, engine);
  }
  return engine;
}

/** Whether `engine` is the kernel's own (no HubOS): the workflows plugin then works and drains it. */
export function ownsEngine(kernel: KernelView, engine: RunEngine): boolean {
  return own.get(kernel) === engine;
}

/** Instances whose heartbeat this plugin has started (or is starting). */
const beating = new WeakMap<Instance, Promise<void>>();

/**
 * Makes sure this instance's heartbeat runs before it runs a workflow: other instances judge the
 * run's holder by it (`isAlive`), and one without a heartbeat looks dead. Calls are joined into one.
 */
export function ensureHeartbeat(instance: Instance): Promise<void> {
  let started = beating.get(instance);
  if (!started) {
    // A first heartbeat that failed (the store away) is tried again by the next caller.
    started = instance.start().catch((error: unknown) => {
      beating.delete(instance);
      throw error;
    });
    beating.set(instance, started);
  }
  return started;
}
