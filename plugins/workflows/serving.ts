import { errorMessage, type KernelView, type RunEngine, type Store } from '../../core/index.ts';
import { ensureHeartbeat, ownsEngine, workflowEngine } from './engine.ts';
import { importStoredWorkflowRuns } from './import-stored-runs.ts';
import { WORKFLOW_PREFIX } from './run-view.ts';
import type { Workflow } from './workflow.ts';

/** Stores whose key/value workflow runs were moved (or are being moved) into the runs tables. */
const imported = new WeakMap<Store, Promise<unknown>>();

/**
 * Makes the kernel's workflow runs runs of its engine: the engine asks it how to run a queued
 * workflow run it claimed, or one whose instance died (resumed from its kept steps with
 * `autoResume`, else left `interrupted`). On a kernel without HubOS the engine is the kernel's
 * own, and this serves it: heartbeat, the sweep of dead instances' runs, queued runs taken.
 */
export class WorkflowServing {
  readonly #kernel: KernelView;
  readonly #workflows: ReadonlyMap<string, Workflow<never>>;
  readonly #autoResume: boolean;
  #engine: RunEngine | undefined;

  constructor(kernel: KernelView, workflows: ReadonlyMap<string, Workflow<never>>, autoResume: boolean) {
    this.#kernel = kernel;
    this.#workflows = workflows;
    this.#autoResume = autoResume;
  }

  /** Binds the workflows to the kernel's engine (once the kernel is ready, before HubOS serves). */
  async start(): Promise<void> {
    if (this.#engine) return;
    const kernel = this.#kernel;
    const engine = workflowEngine(kernel);
    this.#engine = engine;
    this.adopt(engine);
    const { store } = engine;
    let moving = imported.get(store);
    if (!moving) {
      moving = engine.table().then((table) => importStoredWorkflowRuns(store, table));
      imported.set(store, moving);
    }
    await moving.catch((error: unknown) => {
      imported.delete(store);
      kernel.logger.warn(`moving stored workflow runs into the runs table: ${errorMessage(error)}`);
    });
    if (!ownsEngine(kernel, engine) || this.#workflows.size === 0) return;
    // A kernel no HubOS serves is an instance from boot: a restarted one shows its crashed runs as they are.
    await ensureHeartbeat(kernel.instance);
    await engine.sweep();
    await engine.work(16);
  }

  /**
   * Tells `engine` how to run the workflow runs it claims or takes over: the kernel's engine, and
   * that of a HubOS built beside the kernel on its store (which takes queued runs too).
   */
  adopt(engine: RunEngine): void {
    engine.resumable(WORKFLOW_PREFIX, (record) => {
      const name = record.agent.slice(WORKFLOW_PREFIX.length);
      const workflow = this.#workflows.get(name);
      if (!workflow) return `instance ${engine.instanceId} has no workflow "${name}"`;
      // Taken over from a dead instance (a queued run is taken with none).
      if ((record.resumes ?? 0) > 0 && !this.#autoResume)
        return 'autoResume is off on the instance that found it (resume the run to continue it)';
      return workflow.driver();
    });
  }

  /** Cancels what still runs on the kernel's own engine, and waits for each run to record its end. */
  async stop(): Promise<void> {
    const engine = this.#engine;
    if (engine && ownsEngine(this.#kernel, engine)) await engine.drain(0);
  }
}
