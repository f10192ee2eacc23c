import type { Bus, Instance, Store } from '../../core/index.ts';
import { errorMessage } from '../../core/index.ts';
import {
  ACTIVE_NAMESPACE,
  fileEnded,
  QUEUED_NAMESPACE,
  type RunRecord,
  readRun,
  swapActive,
} from './run-record.ts';

export interface RunSweeperOptions {
  store: Store;
  bus: Bus;
  instance: Instance;
  /** A queued run whose job may be lost: its instance died with a local queue, or Redis restarted. */
  requeue: (record: RunRecord) => Promise<void>;
  /** A run this sweeper marked interrupted. */
  ended: (record: RunRecord) => Promise<void>;
  onError?: (message: string) => void;
}

/**
 * Finds the runs of instances whose heartbeat has expired and marks them `interrupted`, once
 * (the record is swapped atomically, so of several sweeping instances one marks each run).
 * Runs at startup, which covers a single instance restarted after a crash, then every lease.
 */
export class RunSweeper {
  readonly #options: RunSweeperOptions;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(options: RunSweeperOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      this.sweep().catch((error: unknown) =>
        this.#options.onError?.(`sweeping runs: ${errorMessage(error)}`),
      );
    }, this.#options.instance.leaseMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    const { store, instance } = this.#options;
    const alive = new Map<string, boolean>();
    for (const runId of await store.list(ACTIVE_NAMESPACE)) {
      const record = (await store.get(ACTIVE_NAMESPACE, runId)) as RunRecord | undefined;
      const owner = record?.instance;
      if (!record || !owner || owner === instance.id) continue;
      if (!alive.has(owner)) alive.set(owner, await instance.isAlive(owner));
      if (alive.get(owner)) continue;
      if (record.status === 'running') await this.interrupt(record);
      else if (record.status === 'queued' && !this.#options.bus.shared) await this.#options.requeue(record);
      // An ended record left active (its instance died while filing it) is filed now.
      else if (record.status !== 'queued') await fileEnded(store, record);
    }
    if (this.#options.bus.shared) await this.#requeueShared();
  }

  // A shared queue loses its jobs when Redis restarts without persistence: queued runs that have
  // waited a lease are queued again. A job still there is not added twice (its id is the run's).
  async #requeueShared(): Promise<void> {
    const { store, instance } = this.#options;
    for (const runId of await store.list(QUEUED_NAMESPACE)) {
      const record = await readRun(store, runId);
      if (record?.status !== 'queued') continue;
      if (Date.now() - Date.parse(record.createdAt) >= instance.leaseMs) await this.#options.requeue(record);
    }
  }

  /** Marks a running run of a dead instance `interrupted`; undefined when another instance did first. */
  async interrupt(record: RunRecord): Promise<RunRecord | undefined> {
    const { store } = this.#options;
    const now = new Date().toISOString();
    const interrupted: RunRecord = {
      ...record,
      status: 'interrupted',
      error: {
        code: 'RUN_INTERRUPTED',
        message: `the instance running it (${record.instance}) stopped before the run ended; start it again to retry`,
      },
      finishedAt: now,
      updatedAt: now,
    };
    if (!(await swapActive(store, record, interrupted))) return undefined;
    await fileEnded(store, interrupted);
    await this.#options.ended(interrupted);
    return interrupted;
  }
}
