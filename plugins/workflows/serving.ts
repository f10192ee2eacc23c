import { errorMessage, type Job, type KernelView } from '../../core/index.ts';
import { ensureHeartbeat } from './lease.ts';
import {
  loadRunHeader,
  swapRunHeader,
  unmarkActive,
  WORKFLOW_CANCEL_CHANNEL,
  WORKFLOW_QUEUE,
} from './run-record.ts';
import { WorkflowSweeper } from './sweeper.ts';
import type { Workflow } from './workflow.ts';

export interface ServeOptions {
  /** How many queued runs this instance runs at once. */
  concurrency: number;
  /** Hands a background run to the server, whose graceful shutdown drains it. */
  track?: (controller: AbortController, done: Promise<unknown>) => void;
}

/**
 * What makes a kernel a live instance for workflow runs: its heartbeat, the sweep of runs whose
 * instance died, and the queued (`async`) runs it takes from the bus's `workflows` queue. Started
 * when HubOS listens, or at boot on a kernel that no HubOS serves.
 */
export class WorkflowServing {
  readonly #kernel: KernelView;
  readonly #workflows: ReadonlyMap<string, Workflow<never>>;
  readonly #autoResume: boolean;
  #started = false;
  #sweeper: WorkflowSweeper | undefined;
  #stopWork: Promise<(() => Promise<void>) | undefined> | undefined;
  #stopCancels: Promise<(() => Promise<void>) | undefined> | undefined;
  #track: ServeOptions['track'];

  constructor(kernel: KernelView, workflows: ReadonlyMap<string, Workflow<never>>, autoResume: boolean) {
    this.#kernel = kernel;
    this.#workflows = workflows;
    this.#autoResume = autoResume;
  }

  async start(options: ServeOptions): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.#track = options.track;
    const kernel = this.#kernel;
    await ensureHeartbeat(kernel.instance);
    this.#sweeper = new WorkflowSweeper({
      store: kernel.store,
      bus: kernel.bus,
      instance: kernel.instance,
      workflows: this.#workflows,
      autoResume: this.#autoResume,
      background: (run) => void this.#background(run),
      logger: kernel.logger,
    });
    // The first pass before serving: a restarted instance shows its crashed runs as they are.
    await this.#sweeper.sweep();
    this.#sweeper.start();
    // A cancel asked on another instance stops the run here, if it runs here.
    this.#stopCancels = kernel.bus
      .subscribe(WORKFLOW_CANCEL_CHANNEL, (message) => {
        const { runId, reason } = message as { runId?: string; reason?: string };
        if (runId) for (const workflow of this.#workflows.values()) workflow.cancel(runId, reason);
      })
      .catch((error: unknown) => {
        kernel.logger.warn(`cannot hear workflow cancels from other instances: ${errorMessage(error)}`);
        return undefined;
      });
    this.#stopWork = kernel.bus.work(WORKFLOW_QUEUE, (job) => this.#take(job), {
      concurrency: options.concurrency,
    });
    await this.#stopWork;
  }

  /** Takes no more runs (queued, or of dead instances); those under way go on. */
  async stop(): Promise<void> {
    this.#sweeper?.stop();
    const unsubscribe = await this.#stopCancels;
    this.#stopCancels = undefined;
    await unsubscribe?.().catch(() => undefined);
    const stopWork = this.#stopWork;
    this.#stopWork = undefined;
    await (await stopWork)?.();
  }

  #background(run: (signal: AbortSignal) => Promise<unknown>): Promise<unknown> {
    const controller = new AbortController();
    const done = run(controller.signal).catch((error: unknown) =>
      this.#kernel.logger.warn(`a workflow run in the background failed: ${errorMessage(error)}`),
    );
    this.#track?.(controller, done);
    return done;
  }

  async #take(job: Job): Promise<void> {
    const { runId, workflow: name } = job.data as { runId: string; workflow: string };
    const workflow = this.#workflows.get(name);
    if (workflow) {
      await this.#background((signal) => workflow.runQueued(runId, { signal }));
      return;
    }
    // Instances of one service share their workflows: one missing here will not appear elsewhere.
    const store = this.#kernel.store;
    const header = await loadRunHeader(store, runId);
    if (header?.status !== 'queued') return;
    const failed = {
      ...header,
      status: 'failed' as const,
      error: {
        code: 'WORKFLOW_NOT_FOUND',
        message: `instance ${this.#kernel.instance.id} has no workflow "${name}"`,
      },
      finishedAt: new Date().toISOString(),
    };
    if (await swapRunHeader(store, header, failed)) await unmarkActive(store, runId);
  }
}
