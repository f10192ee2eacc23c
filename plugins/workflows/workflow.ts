import { randomUUID } from 'node:crypto';
import {
  HubosError,
  type JSONSchema,
  type KernelView,
  type Policy,
  type Store,
  streamEvents,
} from '../../core/index.ts';
import { createAjv, createPolicy, describeErrors } from '../../core/internal.ts';
import { checkDefinition } from './define.ts';
import { describeWorkflow, type WorkflowShape } from './describe.ts';
import { WORKFLOW_ERROR_CODES } from './errors.ts';
import { type ExecContext, rootScope, runSequence } from './executor.ts';
import type { TeamLike } from './leaf-steps.ts';
import { ensureHeartbeat, type RunLease, type RunLeases, runLeases } from './lease.ts';
import {
  loadRunHeader,
  loadRunRecord,
  markActive,
  newRunRecord,
  type RunHeader,
  RunRecorder,
  reopenRunRecord,
  swapRunHeader,
  toJson,
  unmarkActive,
  WORKFLOW_CANCEL_CHANNEL,
  WORKFLOW_QUEUE,
  WORKFLOW_RUNS_NAMESPACE,
} from './run-record.ts';
import { StepCancelled, StepFailure, toWorkflowError } from './step-errors.ts';
import type {
  WorkflowDefinition,
  WorkflowEvent,
  WorkflowRunOptions,
  WorkflowRunRecord,
  WorkflowRunResult,
} from './types.ts';

export interface WorkflowDeps {
  /** The kernel whose agents, tools, permission policy and approvals the steps use. */
  kernel: KernelView;
  /** Where runs are recorded (default: the kernel's store). */
  store?: Store;
  /** Finds a Stars team for `stars` steps. */
  team?: (name: string) => TeamLike;
}

const ANY_OBJECT = { type: 'object' } as const;

/** What a run whose lease another instance took looks like here: interrupted (nothing of it is written). */
function takenOver(record: WorkflowRunRecord): WorkflowRunResult {
  return {
    ...structuredClone(record),
    status: 'interrupted',
    error: {
      code: 'RUN_INTERRUPTED',
      message: `another instance took workflow run ${record.runId} over (this one looked dead to it)`,
    },
  };
}

/** takeOver and runQueued answer undefined, rather than an error, for a run that is not theirs to run. */
function ignoreRefusal(error: unknown): undefined {
  if (HubosError.is(error) && error.code.startsWith('WORKFLOW_RUN_')) return undefined;
  throw error;
}

/** Run ids appear in URLs and store keys (`<runId>/<seq>`): no "/". */
const RUN_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/** A run ready to execute: its record, the controller reserved under its id, and its lease. */
interface Opened {
  recorder: RunRecorder;
  controller: AbortController;
  lease: RunLease;
}

/** Set once the recorder exists: a lease lost before then has nothing to fence. */
type RecorderRef = { recorder?: RunRecorder };

/**
 * A workflow bound to a kernel: `run`/`stream` a new run, `resume` one that stopped before its end
 * (a restart, a failure, a cancel) without redoing its finished steps, `cancel`, `getRun`, `listRuns`.
 * A run executes under a lease in the store (see RunLeases): of the instances sharing the store,
 * only the one holding it runs or resumes the run.
 */
export class Workflow<I = unknown> {
  readonly name: string;
  readonly definition: WorkflowDefinition<I>;
  readonly inputSchema: JSONSchema;
  readonly #deps: WorkflowDeps;
  readonly #validate: ReturnType<ReturnType<typeof createAjv>['compile']>;
  /** Runs of this process by id: reserved before the first await, so one id never runs twice at once. */
  readonly #active = new Map<
    string,
    { controller: AbortController; settled: Promise<void>; release(): void }
  >();

  constructor(definition: WorkflowDefinition<I>, deps: WorkflowDeps) {
    checkDefinition(definition as WorkflowDefinition);
    this.definition = definition;
    this.name = definition.name;
    this.inputSchema = definition.inputSchema ?? ANY_OBJECT;
    this.#deps = deps;
    try {
      this.#validate = createAjv().compile(this.inputSchema as object);
    } catch (error) {
      throw new HubosError(
        'CONFIG_INVALID',
        `workflow "${this.name}": "inputSchema" is not a valid JSON Schema: ${(error as Error).message}`,
      );
    }
  }

  get description(): string | undefined {
    return this.definition.description;
  }

  #builtPolicy: Policy | undefined;

  /** The config's permission policy, built on first use (the kernel's config is final by then). */
  get #policy(): Policy {
    this.#builtPolicy ??= createPolicy(this.#deps.kernel.config.permissions);
    return this.#builtPolicy;
  }

  get #store(): Store {
    return this.#deps.store ?? this.#deps.kernel.store;
  }

  get #leases(): RunLeases {
    return runLeases(this.#store, this.#deps.kernel.instance);
  }

  /** Runs ids of this process's runs still going. */
  get active(): string[] {
    return [...this.#active.keys()];
  }

  /** Its steps as data (for pages and `GET /api/workflows/:name`). */
  describe(): WorkflowShape {
    return describeWorkflow(this.definition as WorkflowDefinition, this.inputSchema);
  }

  /**
   * Runs to the end and resolves with the result — completed, failed (with the failing step's
   * error) or cancelled. Rejects only when it cannot start: invalid input, a run id in use.
   */
  async run(
    input: I,
    options: WorkflowRunOptions & { onEvent?: (event: WorkflowEvent) => void } = {},
  ): Promise<WorkflowRunResult> {
    const opened = await this.#start(input, options.runId, options.principal);
    return this.#execute(opened, false, options.signal, options.onEvent);
  }

  /** The run's events as they happen; stopping the iteration early cancels the run. */
  stream(input: I, options: WorkflowRunOptions = {}): AsyncGenerator<WorkflowEvent, void, undefined> {
    return this.#streamed(options.signal, () => this.#start(input, options.runId, options.principal), false);
  }

  /** Continues a run that did not complete, from its last finished step (finished steps are not run again). */
  async resume(
    runId: string,
    options: { signal?: AbortSignal; onEvent?: (event: WorkflowEvent) => void } = {},
  ): Promise<WorkflowRunResult> {
    const opened = await this.#reopen(runId);
    return this.#execute(opened, true, options.signal, options.onEvent);
  }

  resumeStream(
    runId: string,
    options: { signal?: AbortSignal } = {},
  ): AsyncGenerator<WorkflowEvent, void, undefined> {
    return this.#streamed(options.signal, () => this.#reopen(runId), true);
  }

  /**
   * Resumes a run whose instance died while running it (what `autoResume` does); undefined when
   * it is not such a run (it ended, or another instance runs or took it).
   */
  async takeOver(
    runId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<WorkflowRunResult | undefined> {
    const opened = await this.#reopen(runId, true).catch(ignoreRefusal);
    return opened && this.#execute(opened, true, options.signal, undefined);
  }

  /**
   * Records a run as `queued` and puts it on the bus's `workflows` queue, for whichever instance
   * has room (`runQueued`); resolves with its header once both are stored. Input errors reject here.
   */
  async enqueue(input: I, options: Omit<WorkflowRunOptions, 'signal'> = {}): Promise<RunHeader> {
    const runId = options.runId ?? randomUUID();
    const data = this.#checkInput(input, runId);
    const { kernel } = this.#deps;
    await ensureHeartbeat(kernel.instance);
    const record = newRunRecord(runId, this.name, data, options.principal, kernel.instance.id, 'queued');
    await this.#create(new RunRecorder(this.#store, record));
    await kernel.bus.enqueue(WORKFLOW_QUEUE, { id: runId, data: { runId, workflow: this.name } });
    const { steps: _steps, usage: _usage, ...header } = record;
    return header;
  }

  /** Runs a queued run (a job of the `workflows` queue); undefined when it is no longer queued. */
  async runQueued(
    runId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<WorkflowRunResult | undefined> {
    const opened = await this.#claim(runId).catch(ignoreRefusal);
    return opened && this.#execute(opened, false, options.signal, undefined);
  }

  /** Cancels a run of this process; false when it is not running here. */
  cancel(runId: string, reason = 'cancelled'): boolean {
    const run = this.#active.get(runId);
    run?.controller.abort(new HubosError('RUN_CANCELLED', reason));
    return run !== undefined;
  }

  /**
   * Cancels a run another instance is running, through a shared bus: asked again every second
   * until its record says it stopped (true), or 30 s passed or nothing can reach it (false).
   */
  async cancelElsewhere(runId: string, reason = 'cancelled'): Promise<boolean> {
    const { bus } = this.#deps.kernel;
    const header = await loadRunHeader(this.#store, runId);
    if (!bus.shared || header?.workflow !== this.name || header.status !== 'running') return false;
    const ask = () => bus.publish(WORKFLOW_CANCEL_CHANNEL, { runId, reason }).catch(() => undefined);
    await ask();
    const again = setInterval(ask, 1_000);
    try {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        if ((await loadRunHeader(this.#store, runId))?.status !== 'running') return true;
      }
      return false;
    } finally {
      clearInterval(again);
    }
  }

  /** Cancels a run still waiting in the queue; false when it is not queued. */
  async cancelQueued(runId: string, reason = 'cancelled'): Promise<boolean> {
    const header = await loadRunHeader(this.#store, runId);
    if (header?.workflow !== this.name || header.status !== 'queued') return false;
    const now = new Date().toISOString();
    const cancelled: RunHeader = {
      ...header,
      status: 'cancelled',
      error: { code: 'RUN_CANCELLED', message: reason },
      finishedAt: now,
    };
    if (!(await swapRunHeader(this.#store, header, cancelled))) return false;
    await unmarkActive(this.#store, runId);
    return true;
  }

  /** Cancels every run of this process and waits for each to record how it ended (kernel close). */
  async close(reason = 'the kernel is closing'): Promise<void> {
    const runs = [...this.#active.values()];
    for (const run of runs) run.controller.abort(new HubosError('RUN_CANCELLED', reason));
    await Promise.all(runs.map((run) => run.settled));
  }

  /** A run of this workflow as recorded (running, finished, or interrupted). */
  async getRun(runId: string): Promise<WorkflowRunRecord | undefined> {
    return loadRunRecord(this.#store, runId, this.name);
  }

  /**
   * This workflow's recorded runs (without their steps), newest first; `filter` keeps only the runs
   * it accepts before `limit` applies (HubOS: the caller's own, by `owner`).
   */
  async listRuns(limit = 50, filter?: (run: RunHeader) => boolean): Promise<RunHeader[]> {
    const runs: RunHeader[] = [];
    for (const id of await this.#store.list(WORKFLOW_RUNS_NAMESPACE)) {
      const header = await loadRunHeader(this.#store, id);
      if (header?.workflow === this.name && (!filter || filter(header))) runs.push(header);
    }
    return runs.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit);
  }

  #reserve(runId: string): Opened['controller'] {
    if (this.#active.has(runId))
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_RUN_ACTIVE',
        `workflow run "${runId}" is running in this process: wait for it or cancel it`,
      );
    const controller = new AbortController();
    let release!: () => void;
    const settled = new Promise<void>((resolve) => {
      release = () => {
        if (this.#active.get(runId)?.controller === controller) this.#active.delete(runId);
        resolve();
      };
    });
    this.#active.set(runId, { controller, settled, release });
    return controller;
  }

  /** The input as JSON, once it and the run id are valid. */
  #checkInput(input: I, runId: string): unknown {
    if (typeof runId !== 'string' || !RUN_ID.test(runId))
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_INPUT_INVALID',
        `invalid run id ${JSON.stringify(runId)}: use 1 to 200 letters, digits, "_", ".", ":" or "-"`,
      );
    // The state holds JSON, as the store does: what a step reads now is what it reads after a resume.
    const data = toJson(input, `workflow "${this.name}" input`);
    if (!this.#validate(data)) {
      const problems = describeErrors(this.#validate.errors, data).join('; ');
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_INPUT_INVALID',
        `invalid input for workflow "${this.name}": ${problems}`,
      );
    }
    return data;
  }

  /** Stores a new run's header: marked active first, so a crash right after still leaves the mark. */
  async #create(recorder: RunRecorder): Promise<void> {
    const { runId } = recorder.record;
    const taken = () =>
      WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_RUN_ACTIVE',
        `workflow run "${runId}" already exists: pick another run id`,
      );
    if (await loadRunHeader(this.#store, runId)) throw taken();
    await markActive(this.#store, runId, this.name);
    // Of two instances creating one run id at once, one writes the header.
    if (!(await recorder.create())) throw taken();
  }

  /** Takes the run's lease: refused (409) while another live instance holds it. */
  async #lease(runId: string, controller: AbortController, ref: RecorderRef): Promise<RunLease> {
    const lease = await this.#leases.acquire(runId, () => {
      // Another instance took the run over (this one looked dead): stop, and write nothing more.
      ref.recorder?.fence();
      controller.abort(new HubosError('RUN_CANCELLED', `another instance took workflow run ${runId} over`));
    });
    if (lease) return lease;
    const holder = await this.#leases.holder(runId);
    throw WORKFLOW_ERROR_CODES.create(
      'WORKFLOW_RUN_ACTIVE',
      `workflow run "${runId}" is running on ${holder ? `instance ${holder}` : 'another instance'}: wait for it, or cancel it there`,
    );
  }

  /**
   * Reserves the run id here, checks it (`check`), takes its lease, then `prepare`s its record;
   * on failure, both the reservation and the lease go.
   */
  async #open(
    runId: string,
    prepare: () => Promise<RunRecorder>,
    check?: () => Promise<void>,
  ): Promise<Opened> {
    const controller = this.#reserve(runId);
    const ref: RecorderRef = {};
    let lease: RunLease | undefined;
    try {
      await check?.();
      lease = await this.#lease(runId, controller, ref);
      ref.recorder = await prepare();
      if (lease.lost) ref.recorder.fence();
      return { recorder: ref.recorder, controller, lease };
    } catch (error) {
      await lease?.release().catch(() => undefined);
      this.#active.get(runId)?.release();
      throw error;
    }
  }

  async #start(input: I, runId: string = randomUUID(), principal?: string): Promise<Opened> {
    const data = this.#checkInput(input, runId);
    return this.#open(runId, async () => {
      const record = newRunRecord(runId, this.name, data, principal, this.#leases.instanceId);
      const recorder = new RunRecorder(this.#store, record);
      await this.#create(recorder);
      return recorder;
    });
  }

  /** A queued run taken from the queue: its status swapped to running, under its lease. */
  #claim(runId: string): Promise<Opened> {
    return this.#open(runId, async () => {
      const header = await loadRunHeader(this.#store, runId);
      // Cancelled meanwhile, or taken by another instance: nothing to run.
      const claimed =
        header?.workflow === this.name &&
        header.status === 'queued' &&
        (await swapRunHeader(this.#store, header, {
          ...header,
          status: 'running',
          instance: this.#leases.instanceId,
        }));
      if (!claimed)
        throw WORKFLOW_ERROR_CODES.create(
          'WORKFLOW_RUN_NOT_RUNNING',
          `workflow run "${runId}" is no longer queued`,
        );
      return new RunRecorder(this.#store, (await loadRunRecord(this.#store, runId, this.name))!);
    });
  }

  /** `takeOver`: only a run still `running` (its instance died) is resumed. */
  #reopen(runId: string, takeOver = false): Promise<Opened> {
    const check = async () => this.#checkResumable(runId, await loadRunHeader(this.#store, runId), takeOver);
    return this.#open(
      runId,
      async () => {
        // Read again under the lease: it may have ended, or been resumed and ended, meanwhile.
        const record = await this.getRun(runId);
        this.#checkResumable(runId, record, takeOver);
        // Marked before its status says running, so a crash from here on leaves the mark.
        await markActive(this.#store, runId, this.name);
        // Steps that failed or were cancelled run again; finished ones are replayed from their records.
        const recorder = await reopenRunRecord(this.#store, record!);
        Object.assign(record!, {
          status: 'running',
          instance: this.#leases.instanceId,
          resumes: record!.resumes + 1,
        });
        delete record!.error;
        delete record!.finishedAt;
        delete record!.output;
        await recorder.save();
        return recorder;
      },
      check,
    );
  }

  #checkResumable(runId: string, header: RunHeader | undefined, takeOver: boolean): void {
    if (header?.workflow !== this.name)
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_RUN_NOT_FOUND',
        `workflow "${this.name}" has no run "${runId}"`,
      );
    if (header.status === 'completed')
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_RUN_FINISHED',
        `workflow run "${runId}" already completed: start a new run`,
      );
    if (header.status === 'queued')
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_RUN_ACTIVE',
        `workflow run "${runId}" is queued: it starts when an instance has room`,
      );
    if (takeOver && header.status !== 'running')
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_RUN_NOT_RUNNING',
        `workflow run "${runId}" is ${header.status}`,
      );
  }

  async #execute(
    { recorder, controller, lease }: Opened,
    resumed: boolean,
    signal: AbortSignal | undefined,
    onEvent: ((event: WorkflowEvent) => void) | undefined,
  ): Promise<WorkflowRunResult> {
    const { runId, input } = recorder.record;
    const abort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', abort, { once: true });
    if (signal?.aborted) abort();
    // A listener that throws must not fail the run (nor record a finished step twice).
    const emit = (event: WorkflowEvent) => {
      try {
        onEvent?.(event);
      } catch (error) {
        this.#deps.kernel.logger.warn(
          `workflow "${this.name}" run ${runId}: an event listener threw: ${(error as Error).message}`,
        );
      }
    };
    const ctx: ExecContext = {
      deps: {
        kernel: this.#deps.kernel,
        policy: this.#policy,
        team:
          this.#deps.team ??
          ((name) => {
            throw new HubosError(
              'CONFIG_INVALID',
              `workflow "${this.name}": no Stars team "${name}" (add the stars plugin and the team)`,
            );
          }),
      },
      workflow: this.name,
      runId,
      // A resumed run is still its owner's, whoever resumes it (an admin may).
      ...(recorder.record.owner !== undefined ? { principal: recorder.record.owner } : {}),
      input,
      recorder,
      outputs: {},
      emit,
    };
    try {
      emit({ type: 'workflow-start', runId, workflow: this.name, input, resumed });
      try {
        const records = await runSequence(
          this.definition.steps as WorkflowDefinition['steps'],
          ctx,
          rootScope(controller.signal),
        );
        const state = Object.freeze({
          runId,
          workflow: this.name,
          input: input as I,
          steps: { ...ctx.outputs },
          iterations: {},
        });
        const output = this.definition.output ? await this.definition.output(state) : records.at(-1)?.output;
        await recorder.finish('completed', toJson(output, `workflow "${this.name}" output`));
      } catch (error) {
        if (error instanceof StepFailure) await recorder.finish('failed', undefined, error.failure);
        else if (error instanceof StepCancelled || controller.signal.aborted)
          await recorder.finish('cancelled', undefined, {
            code: 'RUN_CANCELLED',
            message: `workflow run ${runId} was cancelled`,
          });
        else await recorder.finish('failed', undefined, toWorkflowError(error, ''));
      }
      const result = lease.lost ? takenOver(recorder.record) : structuredClone(recorder.record);
      // Let go before the caller hears the end: a resume right after it must find the run free.
      await this.#letGo(lease, true);
      emit({ type: 'workflow-finish', runId, result });
      return result;
    } finally {
      signal?.removeEventListener('abort', abort);
      await this.#letGo(lease, false);
      this.#active.get(runId)?.release();
    }
  }

  /**
   * The run has ended here: lease released and, once its final status is written (`ended`) and
   * no other instance runs it, unmarked. Left marked, a sweep finds it and marks it interrupted.
   */
  async #letGo(lease: RunLease, ended: boolean): Promise<void> {
    if (lease.released) return;
    const warn = (error: unknown) =>
      this.#deps.kernel.logger.warn(
        `workflow "${this.name}" run ${lease.runId}: could not release it: ${(error as Error).message}`,
      );
    if (ended && !lease.lost) await unmarkActive(this.#store, lease.runId).catch(warn);
    await lease.release().catch(warn);
  }

  async *#streamed(
    signal: AbortSignal | undefined,
    open: () => Promise<Opened>,
    resumed: boolean,
  ): AsyncGenerator<WorkflowEvent, void, undefined> {
    const opened = await open();
    yield* streamEvents<WorkflowEvent>(signal, (own, push) => this.#execute(opened, resumed, own, push));
  }
}
