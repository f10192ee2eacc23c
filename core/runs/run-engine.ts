import type { Agent, RunCheckpoint, RunOptions } from '../agent/agent.ts';
import type { AgentEvent } from '../agent/events.ts';
import type { Message } from '../agent/messages.ts';
import type { RunResume } from '../agent/resume.ts';
import type { Bus } from '../bus/bus.ts';
import { errorMessage, HubosError } from '../errors.ts';
import type { Instance } from '../instance.ts';
import { canSee, type Principal, sessionKey } from '../principal.ts';
import type { Store, StoreValue } from '../store/store.ts';
import { openRunTable } from './open-run-table.ts';
import { RunEvents, type RunFollow, type RunLogEntry } from './run-events.ts';
import { RunHandedOver } from './run-handed-over.ts';
import { newRunId } from './run-id.ts';
import { isFinal, type RunRecord, type RunSurface } from './run-record.ts';
import { PRUNE_BATCH, pruneRuns, type RunDurability, type RunRetention } from './run-retention.ts';
import type { JournalEntry, RunQuery, RunStep, RunTable, StepTrack } from './run-table.ts';
import { type StepDetail, stepDetail } from './step-detail.ts';
import { StepRecorder } from './step-recorder.ts';

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
  /** The run it repeats (`POST /runs/:id/again`): kept on its record. */
  againOf?: string | undefined;
  /** More options for the agent's run (AG-UI's client tools and tool results). */
  run?: Omit<
    RunOptions,
    'runId' | 'signal' | 'principal' | 'sessionId' | 'onEvent' | 'checkpoint' | 'resume'
  >;
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
  /** What the record shows as the run's input. */
  input?: string;
  /** The run's id, when its caller names it (a workflow run's); RUN_EXISTS if it is taken. Default: a new UUIDv7. */
  id?: string;
  /**
   * Whether the instance that finds it orphaned may run it on, through the resumer registered for
   * its name (`resumable`); else it ends `interrupted`.
   */
  resumable?: boolean;
}

/**
 * How a run that is not an agent's goes on, on the instance that takes it: the driver that runs
 * `record` on from what it kept (a queued run: from its start), or why this instance does not.
 * `record` is as taken: `resumes` above 0 for a run taken over from a dead instance.
 */
export type RunResumer = (record: RunRecord, journal: readonly JournalEntry[]) => RunDriver | string;

export interface RunEngineOptions {
  store: Store;
  bus: Bus;
  instance: Instance;
  /**
   * The agent a queued run names, on this instance (undefined when it serves none by that name).
   * Servers that come later register theirs with `serveAgents`.
   */
  resolveAgent?: (name: string) => Agent | undefined;
  /** How long a finished run's events stay readable by `follow` (`runs.eventsTtlMs`, default 5 minutes). */
  eventsTtlMs?: number;
  /** How long ended runs are kept (`runs.retention`): applied by instances that `work`, a batch a minute. */
  retention?: RunRetention | undefined;
  /**
   * What an agent's run keeps while it goes (`runs.durability`): `sync` (default) journals each
   * step, so another instance resumes it; `exit` journals nothing, and the run is not resumable.
   */
  durability?: RunDurability | undefined;
  /** Whether runs' steps are recorded (`runs.recordSteps`, default true): false records none. */
  recordSteps?: boolean | undefined;
  onError?: (message: string) => void;
}

export type RunListener = (event: AgentEvent, seq: number) => void;

interface LiveRun {
  record: RunRecord;
  controller: AbortController;
  done: Promise<void>;
  /** Hears each event (the caller's `listener`: one at most). */
  listener: RunListener | undefined;
  seq: number;
  /** Its steps from its events (none when `runs.recordSteps` is false). */
  steps: StepRecorder | undefined;
  /** Finished steps not yet written: they go with the run's next write (its end, for a quick run). */
  unsaved: RunStep[];
  /** The last entry of its journal (what another instance would resume it from). */
  kept: number;
  /** Store writes of this run, one after another. */
  writes: Promise<void>;
  /** Stops listening to the caller's signal. */
  release?: () => void;
  /** When the record was last written while running: progress is written at most once a second. */
  savedAt: number;
  /** Its record is in the table as running here (not yet, for a run whose insert is under way). */
  stored: boolean;
}

/** What a run's record keeps of how it was asked: the model it runs on when not its agent's, the run it repeats. */
function asked(options: RunStartOptions): Pick<RunRecord, 'model' | 'againOf' | 'options'> {
  return {
    ...(options.run?.model !== undefined ? { model: options.run.model } : {}),
    ...(options.run?.budget !== undefined || options.run?.userId !== undefined
      ? {
          options: {
            ...(options.run.budget !== undefined ? { budget: options.run.budget } : {}),
            ...(options.run.userId !== undefined ? { userId: options.run.userId } : {}),
          },
        }
      : {}),
    ...(options.againOf !== undefined ? { againOf: options.againOf } : {}),
  };
}

/** The run options a record asks for again when it runs on another instance (queued, or taken over). */
function runModel(record: RunRecord): Pick<RunStartOptions, 'run'> {
  if (record.model === undefined && record.options === undefined) return {};
  return {
    run: {
      ...(record.model !== undefined ? { model: record.model } : {}),
      ...(record.options?.budget !== undefined ? { budget: record.options.budget } : {}),
      ...(record.options?.userId !== undefined ? { userId: record.options.userId } : {}),
    },
  };
}

/** Wakes instances that may take a queued run (a shared bus; else each looks every third of a lease). */
const QUEUED_CHANNEL = 'runs:queued';
/** Tells the instance running a run that a cancel was asked (the record's flag says it too). */
const CANCEL_CHANNEL = 'runs:cancel';
/** Why the orphaned run of an agent does not resume under `runs.durability: 'exit'`. */
const EXIT_NOT_RESUMED =
  "runs.durability is 'exit': a run does not resume on another instance (set it to 'sync' to resume runs)";
/** A run whose instances keep dying while running it is stopped after this many resumes. */
const MAX_RESUMES = 3;

/**
 * The run engine: every run, from its first moment, whichever face started it. Its record is a row
 * of the runs table before the caller hears of it, updated as steps finish and final at the end;
 * its finished model and tool calls are rows of the steps table; its events go to the bus, so any
 * instance can stream them. Queued runs are claimed from the table by whichever instance has room;
 * a cancel is a flag on the record, heard at once over the bus and read again every third of a
 * lease; runs of an instance that died are marked `interrupted` by the first instance to notice.
 */
export class RunEngine {
  readonly #live = new Map<string, LiveRun>();
  /** Child runs (sub-agents, Stars members) going on, by their id: the live run recording them. */
  readonly #childOf = new Map<string, LiveRun>();
  readonly #tracked = new Set<{ controller: AbortController; done: Promise<unknown> }>();
  readonly #options: RunEngineOptions;
  readonly #events: RunEvents;
  readonly #endListeners = new Set<(record: RunRecord) => void>();
  /** Who runs on the runs that are not an agent's, by the prefix of their name (`workflow:`). */
  readonly #resumers = new Map<string, RunResumer>();
  /** Who serves the agents queued and orphaned runs name (HubOS): the first that knows the name runs it. */
  readonly #agentSources = new Set<(name: string) => Agent | undefined>();
  #table: RunTable | undefined;
  #opening: Promise<RunTable> | undefined;
  /** Queued runs this instance takes at once (0: it takes none). */
  #concurrency = 0;
  /** Queued runs this instance took that are still running. */
  #taken = 0;
  #claiming: Promise<void> | undefined;
  #claimAgain = false;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #unsubscribe: Promise<(() => Promise<void>) | undefined>[] = [];
  #listening = false;
  #draining = false;
  /** When retention last ran (0: never); a full batch makes the next tick run it again. */
  #prunedAt = 0;
  readonly #upkeep = new Set<() => Promise<unknown>>();

  constructor(options: RunEngineOptions) {
    this.#options = options;
    this.#events = new RunEvents(options.bus, options.eventsTtlMs, options.onError);
  }

  /** Where run records are kept: plugins keep what belongs with runs (A2A tasks) beside them. */
  get store(): Store {
    return this.#options.store;
  }

  get instanceId(): string {
    return this.#options.instance.id;
  }

  /** The runs tables, opened (and migrated) at first use. */
  table(): Promise<RunTable> {
    if (this.#table) return Promise.resolve(this.#table);
    this.#opening ??= openRunTable(this.#options.store).then(
      (table) => (this.#table = table),
      (error: unknown) => {
        this.#opening = undefined;
        throw error;
      },
    );
    return this.#opening;
  }

  /**
   * Starts a run on this instance for `options.principal`; resolves with its record once that is
   * stored (so any instance can read it), while the run goes on in the background.
   */
  async start(agent: Agent, input: string, options: RunStartOptions): Promise<RunRecord> {
    // A run with client tools or answers to them depends on its caller: it cannot go on without it.
    const run = options.run;
    const resumable =
      this.#options.durability !== 'exit' &&
      !run?.clientTools?.length &&
      !run?.toolResults?.length &&
      !run?.interaction;
    return this.#record({ ...options, name: agent.id, input }, resumable, (ctx) =>
      this.#runAgent(agent, input, ctx, { ...options, via: options.via ?? 'rest' }),
    );
  }

  /**
   * Runs `drive` as a recorded run: stored at start, its events on the bus, cancellable by id and
   * marked interrupted if the instance dies, like an agent's run. Resolves once the record is stored.
   */
  async record(options: RecordedRunOptions, drive: RunDriver): Promise<RunRecord> {
    return this.#record(options, options.resumable === true, drive);
  }

  /**
   * Lets the runs whose name starts with `prefix` (`workflow:`) be queued (`queue`) and go on after
   * their instance died: the instance that takes one asks `resumer` how. Returns the unregistration.
   */
  resumable(prefix: string, resumer: RunResumer): () => void {
    this.#resumers.set(prefix, resumer);
    return () => {
      if (this.#resumers.get(prefix) === resumer) this.#resumers.delete(prefix);
    };
  }

  /**
   * Lets this engine run the agents `resolve` knows by name: queued runs it claims and runs of dead
   * instances it resumes (a server serving agents registers here). Returns the unregistration.
   */
  serveAgents(resolve: (name: string) => Agent | undefined): () => void {
    this.#agentSources.add(resolve);
    return () => this.#agentSources.delete(resolve);
  }

  #agentFor(name: string): Agent | undefined {
    const agent = this.#options.resolveAgent?.(name);
    if (agent) return agent;
    for (const resolve of this.#agentSources) {
      const served = resolve(name);
      if (served) return served;
    }
    return undefined;
  }

  #resumerOf(name: string): RunResumer | undefined {
    for (const [prefix, resumer] of this.#resumers) if (name.startsWith(prefix)) return resumer;
    return undefined;
  }

  async #record(options: RecordedRunOptions, resumable: boolean, drive: RunDriver): Promise<RunRecord> {
    const now = new Date().toISOString();
    if (options.id !== undefined && this.#live.has(options.id)) throw exists(options.id);
    const record: RunRecord = {
      id: options.id ?? newRunId(),
      agent: options.name,
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      owner: options.principal.id,
      status: 'running',
      via: options.via ?? 'rest',
      instance: this.instanceId,
      steps: 0,
      ...(options.input !== undefined ? { input: options.input } : {}),
      createdAt: now,
      startedAt: now,
      ...(resumable ? { resumable } : {}),
      ...asked(options),
    };
    this.#listen();
    const live = this.#open(record, options.signal);
    live.listener = options.listener;
    try {
      // No run starts without its record: a store that is away answers the caller (503), not later.
      if (!(await (this.#table ?? (await this.table())).insert(record))) throw exists(record.id);
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
    options: Pick<RunStartOptions, 'run' | 'sessionId' | 'principal'> & {
      via: RunSurface;
      resume?: RunResume;
    },
  ): Promise<unknown> {
    const live = this.#live.get(ctx.runId);
    const owner = options.principal.id;
    // run() with onEvent, not stream(): no queue between the loop and the listeners.
    return agent
      .run(input, {
        ...options.run,
        // The agent's run id is the record's, so approvals and events name the run HubOS knows.
        runId: ctx.runId,
        // Where the run came from is where its tool calls come from (the kernel's tool hooks see it).
        via: options.via,
        signal: ctx.signal,
        principal: owner,
        ...(options.sessionId ? { sessionId: sessionKey(owner, options.sessionId) } : {}),
        onEvent: ctx.onEvent,
        ...(live?.record.resumable ? { checkpoint: (entry: RunCheckpoint) => this.#keep(live, entry) } : {}),
        ...(options.resume ? { resume: options.resume } : {}),
      })
      .catch((error: unknown) => {
        if (!HubosError.is(error) || !error.details.result) throw error;
      });
  }

  /**
   * Queues a run for whichever instance has room (`work`): its record says `queued` until one takes
   * it. Resolves once the record, with its input, is stored.
   */
  async enqueue(agent: Agent, input: string, options: RunStartOptions): Promise<RunRecord> {
    const record: RunRecord = {
      id: newRunId(),
      agent: agent.id,
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      owner: options.principal.id,
      status: 'queued',
      via: options.via ?? 'rest',
      steps: 0,
      input,
      createdAt: new Date().toISOString(),
      // Not resumable means not journalled: the instance that takes it runs it without a journal.
      ...(this.#options.durability === 'exit' ? {} : { resumable: true }),
      ...asked(options),
    };
    await (await this.table()).insert(record);
    // A doorbell only: an instance that misses it finds the run at its next look.
    if (this.#options.bus.shared) void this.#options.bus.publish(QUEUED_CHANNEL, 1).catch(() => undefined);
    this.#claim();
    return record;
  }

  /**
   * Queues a run that is not an agent's (its name has a `resumable` resumer, which drives it on the
   * instance that takes it). Resolves once its record is stored; RUN_EXISTS for a taken `id`.
   */
  async queue(options: Omit<RecordedRunOptions, 'signal' | 'listener' | 'run'>): Promise<RunRecord> {
    const record: RunRecord = {
      id: options.id ?? newRunId(),
      agent: options.name,
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      owner: options.principal.id,
      status: 'queued',
      via: options.via ?? 'rest',
      steps: 0,
      ...(options.input !== undefined ? { input: options.input } : {}),
      createdAt: new Date().toISOString(),
      ...(options.resumable ? { resumable: true } : {}),
    };
    if (!(await (await this.table()).insert(record))) throw exists(record.id);
    if (this.#options.bus.shared) void this.#options.bus.publish(QUEUED_CHANNEL, 1).catch(() => undefined);
    this.#claim();
    return record;
  }

  /**
   * Runs an ended run on here under its id (a workflow resumed by hand from its kept steps): taken
   * with one write that names how it ended, so of two instances one does. Resolves with the record
   * as running here once stored; undefined when it was no longer as `record` says.
   */
  async reopen(
    record: RunRecord,
    drive: RunDriver,
    options: Pick<RunStartOptions, 'signal' | 'listener'> = {},
  ): Promise<RunRecord | undefined> {
    const table = await this.table();
    // Checked and opened with no await between: of two reopens here, the second finds the first.
    if (!isFinal(record.status) || this.#live.has(record.id)) return undefined;
    const now = new Date().toISOString();
    const { result: _result, error: _error, finishedAt: _finished, ...rest } = record;
    const reopened: RunRecord = {
      ...rest,
      status: 'running',
      instance: this.instanceId,
      resumes: (record.resumes ?? 0) + 1,
      updatedAt: now,
    };
    this.#listen();
    const live = this.#open(reopened, options.signal);
    live.listener = options.listener;
    const close = () => {
      this.#live.delete(record.id);
      live.release?.();
    };
    try {
      if (!(await table.replace(reopened, { status: record.status, instance: record.instance }))) {
        close();
        return undefined;
      }
      live.seq = await this.#events.lastSeq(record.id).catch(() => 0);
    } catch (error) {
      close();
      throw error;
    }
    live.done = this.#drive(drive, live);
    return reopened;
  }

  /**
   * Takes queued runs on this instance, `concurrency` at a time, and watches over the others: asked
   * cancels, and runs of instances that died. Until `drain`.
   */
  async work(concurrency: number): Promise<void> {
    this.#draining = false;
    this.#concurrency = concurrency;
    await this.table();
    this.#listen();
    await this.#tick();
    if (this.#timer) return;
    this.#timer = setInterval(
      () => {
        this.#ticking ??= this.#tick()
          .catch((error: unknown) => this.#options.onError?.(`watching runs: ${errorMessage(error)}`))
          .finally(() => {
            this.#ticking = undefined;
          });
      },
      Math.max(250, Math.floor(this.#options.instance.leaseMs / 3)),
    );
    this.#timer.unref();
  }

  /** Marks the runs of dead instances now (what `work` then does every third of a lease). */
  async sweep(): Promise<void> {
    await this.#sweep();
  }

  // Every third of a lease: cancels asked through the record, runs of dead instances, queued runs.
  async #tick(): Promise<void> {
    const table = await this.table();
    for (const id of await table.cancelRequested(this.instanceId)) this.#abort(id);
    await this.#stopTakenOver(table);
    await this.#sweep();
    this.#claim();
    await this.#prune(table);
    await this.#runUpkeep();
  }

  /**
   * Adds work every tick does on instances that `work`, after the runs' own retention (the
   * retention of what is kept beside runs: sessions, tasks); it paces itself. Returns its removal.
   */
  upkeep(task: () => Promise<unknown>): () => void {
    this.#upkeep.add(task);
    return () => this.#upkeep.delete(task);
  }

  // One failing task is reported and does not keep the others from running.
  async #runUpkeep(): Promise<void> {
    for (const task of this.#upkeep)
      await task().catch((error: unknown) => this.#options.onError?.(`upkeep: ${errorMessage(error)}`));
  }

  // Runs another instance took over while this one looked dead (a long pause): they stop here, and
  // their end is not written (the other instance says how they end).
  async #stopTakenOver(table: RunTable): Promise<void> {
    const here = [...this.#live.values()].filter((live) => live.stored);
    if (here.length === 0) return;
    const held = new Set(await table.runningOn(this.instanceId));
    for (const live of here)
      if (!held.has(live.record.id) && this.#live.get(live.record.id) === live)
        live.controller.abort(new RunHandedOver(live.record.id));
  }

  // A batch at a time, at most once a minute unless the last one was full: never a long hold on the store.
  async #prune(table: RunTable): Promise<void> {
    const { retention } = this.#options;
    if (!retention || Date.now() - this.#prunedAt < 60_000) return;
    const deleted = await pruneRuns(table, retention);
    this.#prunedAt = deleted === PRUNE_BATCH ? 0 : Date.now();
  }

  async #sweep(): Promise<void> {
    const { instance } = this.#options;
    const table = await this.table();
    const alive = new Map<string, boolean>();
    for (const record of await table.activeElsewhere(this.instanceId)) {
      const holder = record.instance;
      if (record.status !== 'running' || !holder) continue;
      if (!alive.has(holder)) alive.set(holder, await instance.isAlive(holder));
      if (!alive.get(holder)) await this.#takeOver(record);
    }
  }

  /**
   * A running run whose instance died: resumed here from its journal when it can be (an agent's run
   * this instance serves, resumed fewer than MAX_RESUMES times), else marked `interrupted`. Resolves
   * with the record as it now stands; undefined when another instance took it first.
   */
  async #takeOver(record: RunRecord): Promise<RunRecord | undefined> {
    // An instance shutting down leaves the run to one that stays (or to itself, at its next start).
    if (this.#draining) return undefined;
    const resumer = this.#resumerOf(record.agent);
    if (resumer) return this.#takeOverDriven(record, resumer);
    const agent = this.#agentFor(record.agent);
    const resumes = record.resumes ?? 0;
    if (!record.resumable || !agent || resumes >= MAX_RESUMES || !record.input)
      return this.#interrupt(record, this.#whyNotResumed(record, agent !== undefined));
    const table = await this.table();
    // Calls that were waiting for a human had not started: read before the run is ours, so a
    // decision arriving from now on is one the resumed run acts on.
    const waiting = await agent.approvals.list(record.id).catch(() => []);
    const now = new Date().toISOString();
    const taken: RunRecord = { ...record, instance: this.instanceId, resumes: resumes + 1, updatedAt: now };
    if (!(await table.replace(taken, { status: 'running', instance: record.instance }))) return undefined;
    const journal = await table.readJournal(record.id);
    const messages: Message[] = journal.flatMap((entry) => entry.messages);
    // Nothing kept yet: it died in its first model call, which is made again from the input.
    if (messages.length === 0) messages.push({ role: 'user', content: record.input });
    const live = this.#open(taken, undefined);
    live.kept = journal.at(-1)?.seq ?? 0;
    live.seq = await this.#events.lastSeq(record.id).catch(() => 0);
    if (live.steps) live.steps.continueAfter((await table.steps(record.id)).at(-1)?.seq ?? 0);
    live.steps?.see({
      type: 'run-start',
      runId: record.id,
      agent: agent.id,
      model: record.model ?? agent.modelRef,
    });
    const principal: Principal = { id: record.owner ?? 'local', kind: 'local' };
    const resume: RunResume = {
      messages,
      rerun: new Set(waiting.filter((approval) => approval.status === 'pending').map((a) => a.callId)),
    };
    live.done = this.#drive(
      (ctx) =>
        this.#runAgent(agent, record.input!, ctx, {
          principal,
          sessionId: record.sessionId,
          via: record.via ?? 'rest',
          resume,
          ...runModel(record),
        }),
      live,
    );
    return taken;
  }

  /** `#takeOver` for a run that is not an agent's: its resumer says how it goes on here, if it does. */
  async #takeOverDriven(record: RunRecord, resumer: RunResumer): Promise<RunRecord | undefined> {
    const resumes = record.resumes ?? 0;
    if (!record.resumable || resumes >= MAX_RESUMES)
      return this.#interrupt(record, whyNotResumed(record, true));
    const table = await this.table();
    const taken: RunRecord = {
      ...record,
      instance: this.instanceId,
      resumes: resumes + 1,
      updatedAt: new Date().toISOString(),
    };
    if (!(await table.replace(taken, { status: 'running', instance: record.instance }))) return undefined;
    const drive = resumer(taken, await table.readJournal(record.id));
    // This instance does not run it on (its owner said so): it ends interrupted, as found.
    if (typeof drive === 'string')
      return this.#interrupt({ ...record, instance: this.instanceId }, drive, record.instance);
    const live = this.#open(taken, undefined);
    live.seq = await this.#events.lastSeq(record.id).catch(() => 0);
    live.done = this.#drive(drive, live);
    return taken;
  }

  // Keeps what a step of the run added, before the run goes on: another instance resumes from it.
  async #keep(live: LiveRun, entry: RunCheckpoint): Promise<void> {
    const table = this.#table ?? (await this.table());
    const kept = await table.journal(
      { runId: live.record.id, seq: ++live.kept, step: entry.step, messages: entry.messages },
      this.instanceId,
    );
    // Another instance took the run over while this one looked dead: it stops before acting.
    if (!kept) throw new RunHandedOver(live.record.id);
  }

  /** Takes queued runs while this instance has room; one claim at a time, again if asked meanwhile. */
  #claim(): void {
    if (this.#concurrency === 0 || this.#draining) return;
    if (this.#claiming) {
      this.#claimAgain = true;
      return;
    }
    this.#claiming = (async () => {
      do {
        this.#claimAgain = false;
        const room = this.#concurrency - this.#taken;
        if (room <= 0) break;
        const table = await this.table();
        const taken = await table.claimQueued(this.instanceId, room, Date.now());
        for (const record of taken) this.#runQueued(record);
        if (taken.length === room) this.#claimAgain = true;
      } while (this.#claimAgain && !this.#draining);
    })()
      .catch((error: unknown) => this.#options.onError?.(`taking queued runs: ${errorMessage(error)}`))
      .finally(() => {
        this.#claiming = undefined;
      });
  }

  // A queued run this instance claimed: run it, or fail it if this instance cannot.
  #runQueued(record: RunRecord): void {
    this.#taken++;
    const resumer = this.#resumerOf(record.agent);
    const agent = resumer ? undefined : this.#agentFor(record.agent);
    const live = this.#open(record, undefined);
    const principal: Principal = { id: record.owner ?? 'local', kind: 'local' };
    live.done = this.#drive(async (ctx) => {
      if (resumer) {
        const drive = resumer(record, []);
        if (typeof drive === 'string') throw new HubosError('RUN_FAILED', drive);
        return drive(ctx);
      }
      if (!agent)
        throw new HubosError(
          'AGENT_NOT_FOUND',
          `instance ${this.instanceId} serves no agent "${record.agent}"`,
        );
      if (record.input === undefined) throw new HubosError('RUN_FAILED', 'the queued run lost its input');
      return this.#runAgent(agent, record.input, ctx, {
        principal,
        sessionId: record.sessionId,
        via: record.via ?? 'rest',
        ...runModel(record),
      });
    }, live).finally(() => {
      this.#taken--;
      this.#claim();
    });
  }

  /** Called with each run's final record, on the instance that saw it end (interrupted ones too). */
  onEnd(listener: (record: RunRecord) => void): () => void {
    this.#endListeners.add(listener);
    return () => this.#endListeners.delete(listener);
  }

  #open(record: RunRecord, signal: AbortSignal | undefined): LiveRun {
    const controller = new AbortController();
    const live: LiveRun = {
      record,
      controller,
      listener: undefined,
      done: Promise.resolve(),
      seq: 0,
      steps: this.#options.recordSteps === false ? undefined : new StepRecorder(record.id),
      unsaved: [],
      kept: 0,
      writes: Promise.resolve(),
      savedAt: Date.now(),
      stored: false,
    };
    this.#live.set(record.id, live);
    // The caller's signal (a client leaving) cancels the run too; its listener goes when the run ends.
    // By hand, not AbortSignal.any, which costs the run route about a tenth of its throughput.
    if (signal?.aborted) controller.abort(signal.reason);
    else if (signal) {
      const forward = () => controller.abort(signal.reason);
      signal.addEventListener('abort', forward, { once: true });
      live.release = () => signal.removeEventListener('abort', forward);
    }
    return live;
  }

  async #drive(drive: RunDriver, live: LiveRun): Promise<void> {
    const { record } = live;
    live.stored = true;
    const table = await this.table();
    try {
      const onEvent = (event: AgentEvent) => {
        const seq = ++live.seq;
        live.listener?.(event, seq);
        this.#events.append(record.id, { seq, event: event as unknown as StoreValue });
        if (live.steps) {
          // A Stars member's run: a sub-agent it starts is recorded on this run too.
          if (event.runId !== record.id) this.#noteChild(event, live);
          const finished = live.steps.see(event);
          if (finished.length > 0) this.#keepSteps(live, table, finished);
        }
        if (event.type === 'step-finish') {
          record.steps = (record.steps ?? 0) + 1;
          record.updatedAt = new Date().toISOString();
          // At most once a second: a quick run is written when it starts and when it ends.
          if (Date.now() - live.savedAt >= 1_000) {
            live.savedAt = Date.now();
            const steps = record.steps;
            void this.#store(live, () => table.progress(record.id, this.instanceId, steps, Date.now()));
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
      record.error = HubosError.is(error)
        ? { code: error.code, message: error.message }
        : { code: 'RUN_FAILED', message: errorMessage(error) };
    } finally {
      if (record.status === 'running') record.status = 'failed';
      record.finishedAt = record.updatedAt = new Date().toISOString();
      live.release?.();
      // The final record must land: through a store outage it is tried again until it does. Written
      // only while this instance still holds the run: one that took it over says how it ends.
      // One write: the record, the steps not yet written, and the journal dropped (nothing is left
      // to resume from), or none of them.
      let lost = false;
      await this.#store(live, () => {
        const steps = live.unsaved.splice(0);
        return persistently(async () => {
          if (!(await table.finish(record, { status: 'running', instance: this.instanceId }, steps))) {
            lost = true;
            this.#options.onError?.(
              `run ${record.id} was taken over before it ended here: its end is not recorded`,
            );
          }
        });
      });
      this.#live.delete(record.id);
      if (this.#childOf.size > 0)
        for (const [id, parent] of this.#childOf) if (parent === live) this.#childOf.delete(id);
      // Taken over, it goes on elsewhere: its followers and listeners hear its end from there; who
      // waited for it here hears that it did not end here.
      if (lost)
        Object.assign(record, {
          status: 'interrupted',
          error: { code: 'RUN_INTERRUPTED', message: `another instance took run ${record.id} over` },
        });
      else await this.#ended(record);
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

  /**
   * Records an event of a child run (a sub-agent task's) as steps of the run that started it,
   * directly or through other children: `callerRunId` is the run whose tool call started the child.
   * Nothing when that run is not recorded here (recording off, or no such run on this instance).
   */
  recordChild(callerRunId: string, child: { label: string; callId?: string }, event: AgentEvent): void {
    const live = this.#live.get(callerRunId) ?? this.#childOf.get(callerRunId);
    if (!live?.steps || !this.#table) return;
    this.#noteChild(event, live);
    const track: StepTrack = {
      runId: event.runId,
      kind: 'subagent',
      label: child.label,
      ...(child.callId !== undefined ? { callId: child.callId } : {}),
      ...(callerRunId !== live.record.id ? { parentRunId: callerRunId } : {}),
    };
    const finished = live.steps.seeChild(event, track);
    if (finished.length > 0) this.#keepSteps(live, this.#table, finished);
  }

  /** Keeps which live run records child run `event.runId` while it goes on (from its start to its end). */
  #noteChild(event: AgentEvent, live: LiveRun): void {
    if (event.type === 'run-start') this.#childOf.set(event.runId, live);
    else if (event.type === 'run-finish' || event.type === 'run-error') this.#childOf.delete(event.runId);
  }

  // A step's rows wait for the run's next write in this turn of the event loop (its end, for a run
  // whose last step it was): a statement less per step. Written alone when none comes.
  #keepSteps(live: LiveRun, table: RunTable, steps: RunStep[]): void {
    if (live.unsaved.push(...steps) > steps.length) return;
    setImmediate(() => {
      // Only while the run is this instance's: one taken over has its steps written by its new holder.
      if (live.unsaved.length > 0)
        void this.#store(live, () => table.addSteps(live.unsaved.splice(0), this.instanceId));
    });
  }

  // Writes in order, one at a time; a failing write is reported, never thrown into the run.
  #store(live: LiveRun, write: () => Promise<unknown>): Promise<void> {
    live.writes = live.writes.then(write).then(
      () => undefined,
      (error: unknown) => this.#options.onError?.(`run ${live.record.id}: ${errorMessage(error)}`),
    );
    return live.writes;
  }

  /** Marks a running run of a dead instance `interrupted`; undefined when another instance did first. */
  async #interrupt(
    record: RunRecord,
    why = 'it cannot resume',
    died = record.instance,
  ): Promise<RunRecord | undefined> {
    const now = new Date().toISOString();
    const interrupted: RunRecord = {
      ...record,
      status: 'interrupted',
      error: {
        code: 'RUN_INTERRUPTED',
        message: `the instance running it (${died}) stopped before the run ended, and ${why}; start it again to retry`,
      },
      finishedAt: now,
      updatedAt: now,
    };
    const table = await this.table();
    if (!(await table.replace(interrupted, { status: 'running', instance: record.instance })))
      return undefined;
    await this.#ended(interrupted);
    return interrupted;
  }

  /** Resolves with the record once the run has ended, wherever it runs. */
  wait(id: string, signal?: AbortSignal): Promise<RunRecord | undefined> {
    const live = this.#live.get(id);
    // Not an async function: a run route waits here for the whole run, and an async frame is held as long.
    if (live) return live.done.then(() => live.record);
    return this.#waitStored(id, signal);
  }

  async #waitStored(id: string, signal?: AbortSignal): Promise<RunRecord | undefined> {
    const record = await this.get(id);
    if (!record || isFinal(record.status)) return record;
    for await (const entry of this.follow(id, 0, signal)) if ('end' in entry) return entry.end;
    return this.get(id);
  }

  /** The run's record: live, or as stored. Given a principal, only a run it may see (else undefined). */
  async get(id: string, principal?: Principal): Promise<RunRecord | undefined> {
    const record = this.#live.get(id)?.record ?? (await (await this.table()).get(id));
    return record && principal && !canSee(principal, record.owner) ? undefined : record;
  }

  /**
   * The run's record as it really stands: a run held by an instance that has died is marked
   * `interrupted` first (once, whoever asks), so a decision or a cancel is answered with the truth.
   */
  async current(id: string, principal?: Principal): Promise<RunRecord | undefined> {
    const record = await this.get(id, principal);
    if (record?.status !== 'running' || this.#live.has(id) || !record.instance) return record;
    if (await this.#options.instance.isAlive(record.instance)) return record;
    return (await this.#takeOver(record)) ?? (await this.get(id, principal));
  }

  /**
   * The runs `principal` may see (an admin: everyone's), newest first, `query.limit` at a time;
   * `before` is the last id of the previous page.
   */
  async list(principal: Principal, query: Omit<RunQuery, 'owner'>): Promise<RunRecord[]> {
    const table = await this.table();
    return table.list({ ...query, ...(principal.admin ? {} : { owner: principal.id }) });
  }

  /** A run's finished model and tool calls, in order (undefined: no such run for `principal`). */
  async steps(id: string, principal?: Principal): Promise<RunStep[] | undefined> {
    if (!(await this.get(id, principal))) return undefined;
    return (await this.table()).steps(id);
  }

  /**
   * One step of a run with its full payload (see `stepDetail` for what a model call's `sent` is).
   * Throws RUN_NOT_FOUND (another principal's run too) or STEP_NOT_FOUND.
   */
  async step(id: string, seq: number, principal?: Principal): Promise<StepDetail> {
    const record = await this.get(id, principal);
    if (!record) throw new HubosError('RUN_NOT_FOUND', `no run "${id}"`);
    const detail = await stepDetail(await this.table(), record, seq);
    if (!detail)
      throw new HubosError(
        'STEP_NOT_FOUND',
        `run "${id}" has no step ${seq}: GET /runs/${id}/steps lists its steps with their seq`,
      );
    return detail;
  }

  /** Forgets an ended run and its steps. Throws RUN_NOT_FOUND, or RUN_ACTIVE for one not ended. */
  async delete(id: string, principal?: Principal): Promise<void> {
    const record = await this.get(id, principal);
    if (!record) throw new HubosError('RUN_NOT_FOUND', `no run "${id}"`);
    if (!isFinal(record.status))
      throw new HubosError('RUN_ACTIVE', `run "${id}" is ${record.status}: cancel it first, then delete it`);
    await (await this.table()).delete(id);
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
   * that has ended (one whose instance died ends `interrupted`, at once), RUN_TIMEOUT when the
   * instance running it neither ends it nor stops answering.
   */
  async cancel(id: string): Promise<RunRecord> {
    const live = this.#live.get(id);
    if (live) {
      live.controller.abort(new Error('cancelled by request'));
      await live.done;
      return live.record;
    }
    const table = await this.table();
    const record = await table.get(id);
    if (!record) throw new HubosError('RUN_NOT_FOUND', `no run "${id}"`);
    if (isFinal(record.status)) throw ended(record);
    if (record.status === 'queued') {
      const now = new Date().toISOString();
      const cancelled: RunRecord = { ...record, status: 'cancelled', finishedAt: now, updatedAt: now };
      if (!(await table.replace(cancelled, { status: 'queued' }))) return this.cancel(id);
      await this.#ended(cancelled);
      return cancelled;
    }
    const holder = record.instance;
    if (holder && !(await this.#options.instance.isAlive(holder))) return this.#cancelOrphan(record);
    // The flag is what the instance reads every third of a lease; the bus only makes it quicker.
    if (!(await table.requestCancel(id))) return this.cancel(id);
    const { bus } = this.#options;
    if (bus.shared) await bus.publish(CANCEL_CHANNEL, { runId: id }).catch(() => undefined);
    const deadline = Date.now() + Math.max(30_000, 2 * this.#options.instance.leaseMs);
    while (Date.now() < deadline) {
      const done = await this.wait(id, AbortSignal.timeout(1_000)).catch(() => undefined);
      if (done && isFinal(done.status)) return done;
      // The instance died while asked: the run ends here, interrupted, and the caller hears so now.
      if (holder && !(await this.#options.instance.isAlive(holder))) return this.#cancelOrphan(record);
    }
    throw new HubosError(
      'RUN_TIMEOUT',
      `instance ${holder} did not confirm cancelling run "${id}" in time: ask again`,
    );
  }

  /**
   * A cancel of a run whose instance died: one that would resume ends `cancelled` here, at once;
   * one that cannot resume has ended `interrupted` (RUN_ENDED says so).
   */
  async #cancelOrphan(record: RunRecord): Promise<RunRecord> {
    const table = await this.table();
    if (!record.resumable || (record.resumes ?? 0) >= MAX_RESUMES) {
      const why = record.resumable
        ? `it was already resumed ${MAX_RESUMES} times`
        : this.#whyNotResumed(record, true);
      throw ended((await this.#interrupt(record, why)) ?? (await table.get(record.id)) ?? record);
    }
    const now = new Date().toISOString();
    const cancelled: RunRecord = { ...record, status: 'cancelled', finishedAt: now, updatedAt: now };
    if (!(await table.finish(cancelled, { status: 'running', instance: record.instance }, []))) {
      const now = await table.get(record.id);
      if (now && isFinal(now.status)) throw ended(now);
      return this.cancel(record.id);
    }
    await this.#ended(cancelled);
    return cancelled;
  }

  // Why an orphan does not resume: under `exit` an agent's run is not journalled, and says so.
  #whyNotResumed(record: RunRecord, served: boolean): string {
    if (!record.resumable && this.#options.durability === 'exit' && !this.#resumerOf(record.agent))
      return EXIT_NOT_RESUMED;
    return whyNotResumed(record, served);
  }

  #abort(id: string): void {
    this.#live.get(id)?.controller.abort(new Error('cancelled by request'));
  }

  // Cancels and queued runs announced by other instances reach this one at once.
  #listen(): void {
    const { bus } = this.#options;
    if (!bus.shared || this.#listening) return;
    this.#listening = true;
    const report = (error: unknown) => {
      this.#options.onError?.(`cannot hear other instances: ${errorMessage(error)}`);
      return undefined;
    };
    this.#unsubscribe.push(
      bus
        .subscribe(CANCEL_CHANNEL, (message) => {
          const runId = (message as { runId?: string }).runId;
          if (runId) this.#abort(runId);
        })
        .catch(report),
      bus.subscribe(QUEUED_CHANNEL, () => this.#claim()).catch(report),
    );
  }

  get running(): number {
    return this.#live.size + this.#tracked.size;
  }

  /**
   * Tracks work that runs outside the engine (a workflow stream) so that shutdown waits for it
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
    this.#draining = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#claiming;
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
    await this.#ticking;
    const unsubscribes = this.#unsubscribe.splice(0);
    this.#listening = false;
    for (const unsubscribe of await Promise.all(unsubscribes)) await unsubscribe?.().catch(() => undefined);
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

function exists(id: string): HubosError {
  return new HubosError('RUN_EXISTS', `a run "${id}" already exists: pick another id`);
}

function ended(record: RunRecord): HubosError {
  return new HubosError('RUN_ENDED', `run "${record.id}" has already ended (${record.status})`, {
    details: { record },
  });
}

function whyNotResumed(record: RunRecord, served: boolean): string {
  if (!record.resumable)
    // An instance under 'sync' may find the run of one under 'exit': that is a reason too.
    return "it cannot resume (it is not an agent run, it depends on its caller's client tools, or it was started under runs.durability 'exit')";
  if (!served) return `this instance serves no agent "${record.agent}" to resume it`;
  if (!record.input) return 'its input was not kept';
  return `it was already resumed ${MAX_RESUMES} times`;
}
