import type { Instance } from '../../core/index.ts';

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
