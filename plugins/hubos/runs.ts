import type { Agent, AgentEvent, Bus, Instance, RunOptions, Store, StoreValue } from '../../core/index.ts';
import { canSee, errorMessage, HubosError, type Principal, sessionKey } from '../../core/index.ts';
import { HUBOS_ERROR_CODES } from './errors.ts';
import { RunEvents, type RunFollow, type RunLogEntry } from './run-events.ts';
import { newRunId } from './run-id.ts';
import {
  fileEnded,
  isFinal,
  QUEUED_NAMESPACE,
  type QueuedRun,
  type RunRecord,
  type RunSurface,
  readRun,
  swapActive,
  writeActive,
} from './run-record.ts';
import { RunSweeper } from './run-sweeper.ts';

export type { RunRecord, RunState, RunSurface } from './run-record.ts';

/** How a run starts: for whom, in which session, and what may stop it. */
export interface RunStartOptions {
  /** The caller: the run, its session and its approvals are theirs. */
  principal: Principal;
  /** The caller's session to continue (its own: the same name from another caller is another session). */
  sessionId?: string | undefined;
  /** Cancels the run (e.g. the client disconnecting). */
  signal?: AbortSignal | undefined;
  /** Where it was started (default `rest`). */
  via?: RunSurface;
  /** Hears each event of the run from the first (with its number in the run). */
  listener?: RunListener;
  /** More options for the agent's run (AG-UI's client tools and tool results). */
  run?: Omit<RunOptions, 'runId' | 'signal' | 'principal' | 'sessionId' | 'onEvent'>;
}

/** What a recorded run does: runs under the record's id and signal, reporting its events. */
export type RunDriver = (ctx: {
  runId: string;
  signal: AbortSignal;
  onEvent: (event: AgentEvent) => void;
}) => Promise<unknown>;

/** A run that is not one agent's turn (a Stars team run, say), recorded like the others. */
export interface RecordedRunOptions extends RunStartOptions {
  /** What the record names as the agent: e.g. `stars:<team>`. */
  name: string;
}

export interface RunManagerOptions {
  store: Store;
  bus: Bus;
  instance: Instance;
  /** The agent a queued run names, on this instance (undefined when it serves none by that name). */
  resolveAgent: (name: string) => Agent | undefined;
  /** How long a finished run's events stay readable by `GET /runs/:id/events` (default 60 s). */
  eventsTtlMs?: number;
  onError?: (message: string) => void;
}

export type RunListener = (event: AgentEvent, seq: number) => void;

interface LiveRun {
  record: RunRecord;
  controller: AbortController;
  done: Promise<void>;
  listeners: Set<RunListener>;
  seq: number;
  /** Store writes of this run, one after another. */
  writes: Promise<void>;
  /** Stops listening to the caller's signal. */
  release?: () => void;
  /** When the record was last written while running: progress is written at most once a second. */
  savedAt: number;
}

const RUN_QUEUE = 'runs';
const CANCEL_CHANNEL = 'runs:cancel';

/**
 * Every run HubOS serves, from its first moment: its record is in the store before the caller
 * hears of it, updated as steps finish and final at the end; its events go to the bus, so any
 * instance can stream them; a cancel reaches it on whichever instance runs it. Runs of an
 * instance that died are marked `interrupted` (see RunSweeper). Queued runs (`enqueue`) are
 * taken by whichever instance has room (`work`).
 */
export class RunManager {
  readonly #live = new Map<string, LiveRun>();
  readonly #tracked = new Set<{ controller: AbortController; done: Promise<unknown> }>();
  readonly #options: RunManagerOptions;
  readonly #events: RunEvents;
  readonly #sweeper: RunSweeper;
  readonly #endListeners = new Set<(record: RunRecord) => void>();
  #stopWork: (() => Promise<void>) | undefined;
  #stopCancels: Promise<(() => Promise<void>) | undefined> | undefined;

  constructor(options: RunManagerOptions) {
    this.#options = options;
    this.#events = new RunEvents(options.bus, options.eventsTtlMs ?? 60_000, options.onError);
    this.#sweeper = new RunSweeper({
      store: options.store,
      bus: options.bus,
      instance: options.instance,
      requeue: (record) => this.#requeue(record),
      ended: (record) => this.#ended(record),
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }

  /** Where run records are kept: plugins keep what belongs with runs (A2A tasks) beside them. */
  get store(): Store {
    return this.#options.store;
  }

  get instanceId(): string {
    return this.#options.instance.id;
  }

  /**
   * Starts a run on this instance for `options.principal`; resolves with its record once that is
   * stored (so any instance can read it), while the run goes on in the background.
   */
  async start(agent: Agent, input: string, options: RunStartOptions): Promise<RunRecord> {
    return this.record({ ...options, name: agent.id }, (ctx) => this.#runAgent(agent, input, ctx, options));
  }

  /**
   * Runs `drive` as a recorded run: stored at start, its events on the bus, cancellable by id and
   * marked interrupted if the instance dies, like an agent's run. Resolves once the record is stored.
   */
  async record(options: RecordedRunOptions, drive: RunDriver): Promise<RunRecord> {
    const now = new Date().toISOString();
    const record: RunRecord = {
      id: newRunId(),
      agent: options.name,
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      owner: options.principal.id,
      status: 'running',
      via: options.via ?? 'rest',
      instance: this.instanceId,
      steps: 0,
      createdAt: now,
      startedAt: now,
    };
    this.#listenForCancels();
    const live = this.#open(record, options.signal);
    if (options.listener) live.listeners.add(options.listener);
    try {
      // No run starts without its record: a store that is away answers the caller (503), not later.
      await writeActive(this.#options.store, record);
    } catch (error) {
      this.#live.delete(record.id);
      live.release?.();
      throw error;
    }
    live.done = Promise.resolve().then(() => this.#drive(drive, live));
    return record;
  }

  #runAgent(
    agent: Agent,
    input: string,
    ctx: Parameters<RunDriver>[0],
    options: Pick<RunStartOptions, 'run' | 'sessionId' | 'principal'>,
  ): Promise<unknown> {
    const owner = options.principal.id;
    // run() with onEvent, not stream(): no queue between the loop and the listeners.
    return agent
      .run(input, {
        ...options.run,
        // The agent's run id is the record's, so approvals and events name the run HubOS knows.
        runId: ctx.runId,
        signal: ctx.signal,
        principal: owner,
        ...(options.sessionId ? { sessionId: sessionKey(owner, options.sessionId) } : {}),
        onEvent: ctx.onEvent,
      })
      .catch((error: unknown) => {
        if (!HubosError.is(error) || !error.details.result) throw error;
      });
  }

  /**
   * Queues a run for whichever instance has room (`server.maxConcurrentRuns`): its record says
   * `queued` until one takes it. Resolves once the record and the job are stored.
   */
  async enqueue(agent: Agent, input: string, options: RunStartOptions): Promise<RunRecord> {
    const record: RunRecord = {
      id: newRunId(),
      agent: agent.id,
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      owner: options.principal.id,
      status: 'queued',
      via: options.via ?? 'rest',
      // The instance that queued it answers for it until one takes it.
      instance: this.instanceId,
      steps: 0,
      createdAt: new Date().toISOString(),
    };
    const { store, bus } = this.#options;
    await store.set(QUEUED_NAMESPACE, record.id, { input } satisfies QueuedRun as unknown as StoreValue);
    await writeActive(store, record);
    // The record is durable now: a job Redis cannot take at once is queued again by the sweep.
    await withTimeout(bus.enqueue(RUN_QUEUE, { id: record.id, data: { runId: record.id } }), 5_000).catch(
      (error: unknown) =>
        this.#options.onError?.(`run ${record.id} waits to be queued again: ${errorMessage(error)}`),
    );
    return record;
  }

  /** Takes queued runs on this instance, `concurrency` at a time, until `close`. */
  async work(concurrency: number): Promise<void> {
    this.#listenForCancels();
    this.#stopWork ??= await this.#options.bus.work(
      RUN_QUEUE,
      async (job) => this.#take(String((job.data as { runId: string }).runId)),
      { concurrency },
    );
  }

  /** Marks the runs of dead instances now and every lease from now on. */
  async sweep(): Promise<void> {
    await this.#sweeper.sweep();
    this.#sweeper.start();
  }

  /** Called with each run's final record, on the instance that saw it end (interrupted ones too). */
  onEnd(listener: (record: RunRecord) => void): () => void {
    this.#endListeners.add(listener);
    return () => this.#endListeners.delete(listener);
  }

  // A job from the queue: run it if nobody has, give it up if its instance died mid-run.
  async #take(runId: string): Promise<void> {
    const { store, instance } = this.#options;
    const record = await readRun(store, runId);
    if (!record || isFinal(record.status)) return;
    if (record.status === 'running') {
      // Handed over because its instance stopped answering: never run twice, mark it instead.
      if (record.instance && !(await instance.isAlive(record.instance)))
        await this.#sweeper.interrupt(record);
      return;
    }
    const queued = (await store.get(QUEUED_NAMESPACE, runId)) as QueuedRun | undefined;
    const agent = this.#options.resolveAgent(record.agent);
    const now = new Date().toISOString();
    const claimed: RunRecord = {
      ...record,
      status: 'running',
      instance: this.instanceId,
      startedAt: now,
      updatedAt: now,
    };
    if (!agent || !queued) {
      const error = !agent
        ? {
            code: 'AGENT_NOT_FOUND',
            message: `instance ${this.instanceId} serves no agent "${record.agent}"`,
          }
        : { code: 'RUN_FAILED', message: 'the queued run lost its input' };
      const failed: RunRecord = { ...record, status: 'failed', error, finishedAt: now, updatedAt: now };
      if (await swapActive(store, record, failed)) {
        await fileEnded(store, failed);
        await this.#ended(failed);
      }
      return;
    }
    // Of two instances handed one job, one wins the record; the other leaves it.
    if (!(await swapActive(store, record, claimed))) return;
    const live = this.#open(claimed, undefined);
    await store.delete(QUEUED_NAMESPACE, runId).catch(() => false);
    const principal = { id: record.owner ?? 'local', kind: 'local' as const };
    live.done = this.#drive(
      (ctx) => this.#runAgent(agent, queued.input, ctx, { principal, sessionId: record.sessionId }),
      live,
    );
    await live.done;
  }

  #open(record: RunRecord, signal: AbortSignal | undefined): LiveRun {
    const controller = new AbortController();
    const live: LiveRun = {
      record,
      controller,
      listeners: new Set(),
      done: Promise.resolve(),
      seq: 0,
      writes: Promise.resolve(),
      savedAt: Date.now(),
    };
    this.#live.set(record.id, live);
    // The caller's signal (a client leaving) cancels the run too; its listener goes when the run ends.
    // By hand, not AbortSignal.any, which costs the run route about a tenth of its throughput.
    if (signal) {
      const forward = () => controller.abort(signal.reason);
      signal.addEventListener('abort', forward, { once: true });
      live.release = () => signal.removeEventListener('abort', forward);
    }
    return live;
  }

  async #drive(drive: RunDriver, live: LiveRun): Promise<void> {
    const { record } = live;
    try {
      const onEvent = (event: AgentEvent) => {
        const seq = ++live.seq;
        for (const listener of live.listeners) listener(event, seq);
        this.#events.append(record.id, { seq, event: event as unknown as StoreValue });
        if (event.type === 'step-finish') {
          record.steps = (record.steps ?? 0) + 1;
          record.updatedAt = new Date().toISOString();
          // At most once a second: a quick run is written when it starts and when it ends.
          if (Date.now() - live.savedAt >= 1_000) {
            live.savedAt = Date.now();
            void this.#store(live, () => writeActive(this.#options.store, { ...record }));
          }
        } else if ((event.type === 'run-finish' || event.type === 'run-error') && event.runId === record.id) {
          record.result = event.result;
          record.status = event.result.status;
          if (event.type === 'run-error') record.error = event.error;
        }
      };
      const outcome = await drive({ runId: record.id, signal: live.controller.signal, onEvent });
      // A driver that reports no run-finish of its own ends when it returns.
      if (record.status === 'running')
        record.status = live.controller.signal.aborted ? 'cancelled' : 'completed';
      if (record.status === 'completed' && record.result === undefined && outcome !== undefined)
        record.result = outcome as RunRecord['result'];
    } catch (error) {
      record.status = 'failed';
      record.error = { code: 'RUN_FAILED', message: errorMessage(error) };
    } finally {
      if (record.status === 'running') record.status = 'failed';
      record.finishedAt = record.updatedAt = new Date().toISOString();
      live.release?.();
      // The final record must land: through a store outage it is tried again until it does.
      await this.#store(live, () => persistently(() => fileEnded(this.#options.store, record)));
      this.#live.delete(record.id);
      await this.#ended(record);
    }
  }

  // A run's final record is known: its followers hear the end, listeners are told.
  async #ended(record: RunRecord): Promise<void> {
    this.#events.end(record.id, record);
    for (const listener of this.#endListeners) {
      try {
        listener(record);
      } catch (error) {
        this.#options.onError?.(`a run-end listener failed: ${errorMessage(error)}`);
      }
    }
  }

  // Writes in order, one at a time; a failing write is reported, never thrown into the run.
  #store(live: LiveRun, write: () => Promise<unknown>): Promise<void> {
    live.writes = live.writes.then(write).then(
      () => undefined,
      (error: unknown) => this.#options.onError?.(`run ${live.record.id}: ${errorMessage(error)}`),
    );
    return live.writes;
  }

  // A queued run whose job may be lost: queued again (on a shared queue, as it was; else here).
  async #requeue(record: RunRecord): Promise<void> {
    const { store, bus } = this.#options;
    if (bus.shared) return bus.enqueue(RUN_QUEUE, { id: record.id, data: { runId: record.id } });
    const moved: RunRecord = { ...record, instance: this.instanceId };
    if (!(await swapActive(store, record, moved))) return;
    await bus.enqueue(RUN_QUEUE, { id: record.id, data: { runId: record.id } });
  }

  /** Resolves with the record once the run has ended, wherever it runs. */
  async wait(id: string, signal?: AbortSignal): Promise<RunRecord | undefined> {
    const live = this.#live.get(id);
    if (live) {
      await live.done;
      return live.record;
    }
    const record = await this.get(id);
    if (!record || isFinal(record.status)) return record;
    for await (const entry of this.follow(id, 0, signal)) if ('end' in entry) return entry.end;
    return this.get(id);
  }

  /** The run's record: live, or as stored. Given a principal, only a run it may see (else undefined). */
  async get(id: string, principal?: Principal): Promise<RunRecord | undefined> {
    const record = this.#live.get(id)?.record ?? (await readRun(this.#options.store, id));
    return record && principal && !canSee(principal, record.owner) ? undefined : record;
  }

  /**
   * A run's events after `afterSeq` wherever it runs, then its end (`{ end: record }`); a run
   * whose events are no longer kept gives its end alone. Ends when `signal` aborts.
   */
  follow(id: string, afterSeq: number, signal?: AbortSignal): AsyncIterable<RunLogEntry> {
    const follow: RunFollow = {
      id,
      afterSeq,
      signal,
      current: () => this.get(id),
    };
    return this.#events.follow(follow);
  }

  /**
   * Cancels a run wherever it runs and resolves with its final record. Throws RUN_ENDED for a run
   * that has ended, RUN_UNREACHABLE for one another instance runs that this one cannot reach.
   */
  async cancel(id: string): Promise<RunRecord> {
    const live = this.#live.get(id);
    if (live) {
      live.controller.abort(new Error('cancelled by request'));
      await live.done;
      return live.record;
    }
    const { store, bus, instance } = this.#options;
    const record = await readRun(store, id);
    if (!record) throw HUBOS_ERROR_CODES.create('RUN_NOT_FOUND', `no run "${id}"`);
    if (isFinal(record.status)) throw ended(record);
    if (record.status === 'queued') {
      const now = new Date().toISOString();
      const cancelled: RunRecord = { ...record, status: 'cancelled', finishedAt: now, updatedAt: now };
      if (!(await swapActive(store, record, cancelled))) return this.cancel(id);
      await fileEnded(store, cancelled);
      await store.delete(QUEUED_NAMESPACE, id).catch(() => false);
      await this.#ended(cancelled);
      return cancelled;
    }
    if (record.instance && !(await instance.isAlive(record.instance))) {
      throw ended((await this.#sweeper.interrupt(record)) ?? record);
    }
    if (!bus.shared)
      throw HUBOS_ERROR_CODES.create(
        'RUN_UNREACHABLE',
        `run "${id}" runs on instance ${record.instance}, which this one cannot reach: join the instances with bus: { driver: 'redis' }`,
      );
    // Said again every second until the run ends: an instance reconnecting to Redis misses one.
    const ask = () => bus.publish(CANCEL_CHANNEL, { runId: id }).catch(() => undefined);
    await ask();
    const again = setInterval(ask, 1_000);
    try {
      const done = await this.wait(id, AbortSignal.timeout(30_000));
      if (done && isFinal(done.status)) return done;
    } finally {
      clearInterval(again);
    }
    throw HUBOS_ERROR_CODES.create(
      'RUN_TIMEOUT',
      `instance ${record.instance} did not confirm cancelling run "${id}" within 30 s: ask again`,
    );
  }

  // Cancels asked for on another instance reach the run here.
  #listenForCancels(): void {
    if (!this.#options.bus.shared || this.#stopCancels) return;
    this.#stopCancels = this.#options.bus
      .subscribe(CANCEL_CHANNEL, (message) => {
        const runId = (message as { runId?: string }).runId;
        if (runId) this.#live.get(runId)?.controller.abort(new Error('cancelled by request'));
      })
      .catch((error: unknown) => {
        this.#options.onError?.(`cannot hear cancels from other instances: ${errorMessage(error)}`);
        return undefined;
      });
  }

  get running(): number {
    return this.#live.size + this.#tracked.size;
  }

  /**
   * Tracks work that runs outside the manager (a workflow stream) so that shutdown waits for it
   * like for its own runs, and cancels it through `controller` at the deadline.
   */
  track(controller: AbortController, done: Promise<unknown>): void {
    const entry = { controller, done: done.catch(() => undefined) };
    this.#tracked.add(entry);
    void entry.done.finally(() => this.#tracked.delete(entry));
  }

  /**
   * Stops taking queued runs, waits for running runs to finish until the deadline, then cancels
   * the rest and waits for them.
   */
  async drain(deadlineMs: number): Promise<void> {
    this.#sweeper.stop();
    const stopWork = this.#stopWork;
    this.#stopWork = undefined;
    // Not awaited first: stopping the worker waits for its jobs, which are the runs drained below.
    const workStopped = stopWork?.().catch(() => undefined);
    const all = () => Promise.all([...this.#live.values(), ...this.#tracked].map((run) => run.done));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), deadlineMs);
    });
    const outcome = await Promise.race([all().then(() => 'done' as const), deadline]);
    clearTimeout(timer);
    if (outcome === 'late') {
      for (const run of [...this.#live.values(), ...this.#tracked]) {
        run.controller.abort(new Error('the server is shutting down'));
      }
      await all();
    }
    await workStopped;
    const unsubscribe = await this.#stopCancels;
    this.#stopCancels = undefined;
    await unsubscribe?.().catch(() => undefined);
  }
}

/** Tries a write again every 2 s for 2 minutes: the store may be restarting. */
async function persistently(write: () => Promise<unknown>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await write();
      return;
    } catch (error) {
      if (attempt >= 60) throw error;
      await new Promise((resolve) => setTimeout(resolve, 2_000).unref());
    }
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function ended(record: RunRecord): HubosError {
  return HUBOS_ERROR_CODES.create('RUN_ENDED', `run "${record.id}" has already ended (${record.status})`, {
    details: { record },
  });
}
