import { errorMessage, type KernelView, type Store } from '../../core/index.ts';
import { ensureHeartbeat } from './heartbeat.ts';
import { importStoredWorkflowRuns } from './import-stored-runs.ts';
import { WORKFLOW_PREFIX } from './run-view.ts';
import type { Workflow } from './workflow.ts';

/** Stores whose key/value workflow runs were moved (or are being moved) into the runs tables. */
const imported = new WeakMap<Store, Promise<unknown>>();

/**
 * Makes the kernel's workflow runs runs of its engine (`kernel.runs`): the engine asks it how to
 * run a queued workflow run it claimed, or one whose instance died (resumed from its kept steps with
 * `autoResume`, else left `interrupted`). When no HubOS serves that engine, this serves it:
 * heartbeat, the sweep of dead instances' runs, queued runs taken. The kernel drains it at close.
 */
export class WorkflowServing {
  readonly #kernel: KernelView;
  readonly #workflows: ReadonlyMap<string, Workflow<never>>;
  readonly #autoResume: boolean;
  #started = false;

  constructor(kernel: KernelView, workflows: ReadonlyMap<string, Workflow<never>>, autoResume: boolean) {
    this.#kernel = kernel;
    this.#workflows = workflows;
    this.#autoResume = autoResume;
  }

  /** Binds the workflows to the kernel's engine (once the kernel is ready, before HubOS serves). */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    const kernel = this.#kernel;
    const engine = kernel.runs;
    engine.resumable(WORKFLOW_PREFIX, (record) => {
      const name = record.agent.slice(WORKFLOW_PREFIX.length);
      const workflow = this.#workflows.get(name);
      if (!workflow) return `instance ${engine.instanceId} has no workflow "${name}"`;
      // Taken over from a dead instance (a queued run is taken with none).
      if ((record.resumes ?? 0) > 0 && !this.#autoResume)
        return 'autoResume is off on the instance that found it (resume the run to continue it)';
      return workflow.driver();
    });
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
    // A HubOS on the kernel's engine works it once it serves; without one the kernel is an
    // instance from boot: a restarted one shows its crashed runs as they are.
    if (kernel.hasService('hubos') && kernel.service('hubos').runs === engine) return;
    if (this.#workflows.size === 0) return;
    await ensureHeartbeat(kernel.instance);
    await engine.sweep();
    await engine.work(16);
  }
}
