import { type Bus, errorMessage, type Instance, type Logger, type Store } from '../../core/index.ts';
import { runLeases } from './lease.ts';
import {
  type ActiveEntry,
  loadRunHeader,
  type RunHeader,
  swapRunHeader,
  unmarkActive,
  WORKFLOW_ACTIVE_NAMESPACE,
  WORKFLOW_QUEUE,
} from './run-record.ts';
import type { Workflow } from './workflow.ts';

export interface SweeperOptions {
  store: Store;
  bus: Bus;
  instance: Instance;
  workflows: ReadonlyMap<string, Workflow<never>>;
  /** Resume the runs of dead instances (else mark them `interrupted`). */
  autoResume: boolean;
  /** Runs a resume in the background (so a server's shutdown can wait for it). */
  background: (run: (signal: AbortSignal) => Promise<unknown>) => void;
  logger: Logger;
}

/**
 * Looks, now and every lease, at the runs marked active (namespace `workflow-runs:active`, not
 * every run) for those no live instance runs: a `running` run whose lease expired or whose holder
 * is dead is resumed (`autoResume`) or marked `interrupted`; a queued run whose instance died with
 * its in-process queue is queued again here. Leases make it safe for every instance to sweep.
 */
export class WorkflowSweeper {
  readonly #options: SweeperOptions;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(options: SweeperOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.sweep(), this.#options.instance.leaseMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One pass; a pass already under way is joined, not doubled. Never rejects. */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep()
      .catch((error: unknown) => this.#options.logger.warn(`sweeping workflow runs: ${errorMessage(error)}`))
      .finally(() => {
        this.#sweeping = undefined;
      });
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    const { store } = this.#options;
    for (const runId of await store.list(WORKFLOW_ACTIVE_NAMESPACE)) {
      try {
        await this.#check(runId);
      } catch (error) {
        this.#options.logger.warn(`sweeping workflow run ${runId}: ${errorMessage(error)}`);
      }
    }
  }

  async #check(runId: string): Promise<void> {
    const { store, instance, workflows, autoResume } = this.#options;
    const leases = runLeases(store, instance);
    // The common case costs one read: a live instance holds the lease.
    if (await leases.holder(runId)) return;
    const header = await loadRunHeader(store, runId);
    if (!header) {
      // Marked a moment before its header is written: only an old mark without one is dropped.
      const entry = (await store.get(WORKFLOW_ACTIVE_NAMESPACE, runId)) as ActiveEntry | undefined;
      if (!entry || Date.now() - entry.since > instance.leaseMs) await unmarkActive(store, runId);
      return;
    }
    if (header.status === 'queued') return this.#requeue(header);
    // It ended, and the instance that ended it died before unmarking it.
    if (header.status !== 'running') return unmarkActive(store, runId);
    if (!autoResume) return this.#interrupt(header);
    // Another instance may know this workflow: leave the run to it.
    const workflow = workflows.get(header.workflow);
    if (!workflow) return;
    this.#options.background(async (signal) => {
      const result = await workflow.takeOver(runId, { signal });
      if (result)
        this.#options.logger.info(
          `workflow run ${runId} resumed here after instance ${header.instance ?? '?'} stopped: ${result.status}`,
        );
    });
  }

  /** Marks a running run of a dead instance `interrupted`, under its lease (a resume may be starting). */
  async #interrupt(header: RunHeader): Promise<void> {
    const { store, instance } = this.#options;
    const lease = await runLeases(store, instance).acquire(header.runId);
    if (!lease) return;
    try {
      const current = await loadRunHeader(store, header.runId);
      if (current?.status !== 'running') return;
      const interrupted: RunHeader = {
        ...current,
        status: 'interrupted',
        error: {
          code: 'RUN_INTERRUPTED',
          message: `the instance running it (${current.instance ?? 'unknown'}) stopped before the run ended; resume it to continue`,
        },
        finishedAt: new Date().toISOString(),
      };
      if (await swapRunHeader(store, current, interrupted)) await unmarkActive(store, header.runId);
    } finally {
      await lease.release();
    }
  }

  /** A queued run whose instance died: its job died with it unless the bus is shared. */
  async #requeue(header: RunHeader): Promise<void> {
    const { store, bus, instance } = this.#options;
    if (bus.shared || (header.instance && (await instance.isAlive(header.instance)))) return;
    if (!(await swapRunHeader(store, header, { ...header, instance: instance.id }))) return;
    await bus.enqueue(WORKFLOW_QUEUE, {
      id: header.runId,
      data: { runId: header.runId, workflow: header.workflow },
    });
  }
}
