import { type ConnectionOptions, Queue, Worker } from 'bullmq';
import type { StoreValue } from '../store/store.ts';
import type { Job, WorkOptions } from './bus.ts';
import { connectionOptions } from './redis-connect.ts';

export interface RedisJobsOptions {
  url: string;
  /** BullMQ's key prefix: its keys are `<prefix>:<queue>:…`. */
  prefix: string;
  /** How long a job's lock outlives its worker's last renewal. */
  leaseMs: number;
}

/**
 * The work queues of a bus, on BullMQ. A job is kept while queued or running (so its id is not
 * added twice) and removed once done or failed; it runs once (a throwing handler fails it), and
 * a job whose worker stops renewing its lock is handed to another worker once.
 */
export class RedisJobs {
  readonly #options: RedisJobsOptions;
  readonly #queues = new Map<string, Queue>();
  readonly #stops = new Set<() => Promise<void>>();

  constructor(options: RedisJobsOptions) {
    this.#options = options;
  }

  async enqueue(name: string, job: Job): Promise<void> {
    await this.#queue(name).add(name, job.data, { jobId: toJobId(job.id) });
  }

  async work(
    name: string,
    handler: (job: Job) => Promise<void>,
    options: WorkOptions,
  ): Promise<() => Promise<void>> {
    const { leaseMs, prefix } = this.#options;
    const worker = new Worker(
      name,
      async (job) => handler({ id: fromJobId(job.id ?? ''), data: job.data as StoreValue }),
      {
        connection: this.#connection(),
        prefix,
        concurrency: Math.max(1, options.concurrency),
        // The lease: renewed every leaseMs / 2 while the worker lives, so it lapses within leaseMs of its death.
        lockDuration: leaseMs,
        // A dead worker's job is moved back about two checks after its lock lapsed (in ~1–2 leases).
        stalledInterval: Math.max(500, Math.floor(leaseMs / 2)),
        // Handed to another worker once; a job that stalls twice fails instead of looping.
        maxStalledCount: 1,
      },
    );
    worker.on('error', () => undefined); // Connection errors: BullMQ and ioredis retry by themselves.
    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= closeWorker(worker, leaseMs).finally(() => this.#stops.delete(stop));
      return stopping;
    };
    this.#stops.add(stop);
    // Ready once its connections are: a job enqueued after work() resolves is seen.
    await worker.waitUntilReady();
    return stop;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#stops].map((stop) => stop()));
    await Promise.all([...this.#queues.values()].map((queue) => queue.close()));
    this.#queues.clear();
  }

  #queue(name: string): Queue {
    let queue = this.#queues.get(name);
    if (!queue) {
      queue = new Queue(name, {
        connection: this.#connection(),
        prefix: this.#options.prefix,
        defaultJobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: true },
      });
      queue.on('error', () => undefined);
      this.#queues.set(name, queue);
    }
    return queue;
  }

  /**
   * Options, not a shared client: BullMQ opens (and closes) connections of its own, blocking ones
   * included. Connected at once, not lazily: a lazy queue whose first connection fails (Redis away
   * at its first use) keeps that failure and never queues again.
   */
  #connection(): ConnectionOptions {
    const { maxRetriesPerRequest, connectionName } = connectionOptions(this.#options.prefix);
    return { url: this.#options.url, lazyConnect: false, maxRetriesPerRequest, connectionName };
  }
}

/**
 * Stops a worker, letting its running jobs finish for up to a lease. A job still running then is
 * abandoned with the connections: its lock lapses and another worker gets it, as if this one died.
 */
async function closeWorker(worker: Worker, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    worker.close().then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => {
      timer = setTimeout(resolve, graceMs, false);
    }),
  ]);
  clearTimeout(timer);
  if (!closed) await worker.disconnect();
}

/** BullMQ refuses ids that are integers or hold a `:`; any id maps to one it accepts, and back. */
function toJobId(id: string): string {
  return `j${encodeURIComponent(id)}`;
}

function fromJobId(jobId: string): string {
  return decodeURIComponent(jobId.slice(1));
}
