import {
  type AgentEvent,
  HubosError,
  type JSONSchema,
  type KernelView,
  newRunId,
  type Policy,
  type Principal,
  type RecordedRunOptions,
  type RunDriver,
  type RunEngine,
  type RunListener,
  type RunRecord,
  streamEvents,
} from '../../core/index.ts';
import { createAjv, createPolicy, describeErrors } from '../../core/internal.ts';
import { checkDefinition } from './define.ts';
import { describeWorkflow, type WorkflowShape } from './describe.ts';
import { WORKFLOW_ERROR_CODES } from './errors.ts';
import { type ExecContext, rootScope, runSequence } from './executor.ts';
import { ensureHeartbeat } from './heartbeat.ts';
import { toJson } from './json.ts';
import type { TeamLike } from './leaf-steps.ts';
import { type RunHeader, WORKFLOW_PREFIX, workflowHeader, workflowRun } from './run-view.ts';
import { StepCancelled, StepFailure, toWorkflowError } from './step-errors.ts';
import { StepKeeper } from './step-keeper.ts';
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
  /** Finds a Stars team for `stars` steps. */
  team?: (name: string) => TeamLike;
}

const ANY_OBJECT = { type: 'object' } as const;

/** Run ids appear in URLs: no "/". */
const RUN_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

type Listener = (event: WorkflowEvent) => void;

/**
 * A workflow bound to a kernel: `run`/`stream` a new run, `resume` one that stopped before its end
 * (a restart, a failure, a cancel) without redoing its finished steps, `enqueue`, `cancel`,
 * `getRun`, `listRuns`. Each run is a run of the engine (`workflow:<name>`, via `workflow`): its
 * record, its claim by one instance, its events and its cancel are the engine's; its finished
 * steps are rows of the run's steps, which a resumed run replays.
 */
export class Workflow<I = unknown> {
  readonly name: string;
  readonly definition: WorkflowDefinition<I>;
  readonly inputSchema: JSONSchema;
  readonly #deps: WorkflowDeps;
  readonly #validate: ReturnType<ReturnType<typeof createAjv>['compile']>;
  /** Runs this process is executing, by id. */
  readonly #active = new Set<string>();

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

  /** The run engine whose runs its runs are. */
  get engine(): RunEngine {
    return this.#deps.kernel.runs;
  }

  get #engine(): RunEngine {
    return this.engine;
  }

  /** What the engine records of a run of this workflow, started here (`run`) or queued (`enqueue`). */
  #runOptions(
    runId: string,
    data: unknown,
    principal: WorkflowRunOptions['principal'],
  ): Omit<RecordedRunOptions, 'signal' | 'listener' | 'run'> {
    return {
      id: runId,
      name: this.#kind,
      via: 'workflow',
      principal: principalOf(principal),
      input: JSON.stringify(data ?? null),
      resumable: true,
    };
  }

  /** The engine's name for this workflow's runs. */
  get #kind(): string {
    return `${WORKFLOW_PREFIX}${this.name}`;
  }

  /** Ids of this process's runs still going. */
  get active(): string[] {
    return [...this.#active];
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
    const runId = options.runId ?? newRunId();
    const data = this.#checkInput(input, runId);
    await ensureHeartbeat(this.#deps.kernel.instance);
    return this.#launch(options.onEvent, (drive, listener) =>
      this.#engine
        .record(
          { ...this.#runOptions(runId, data, options.principal), signal: options.signal, listener },
          drive,
        )
        .catch((error: unknown) => {
          throw HubosError.is(error, 'RUN_EXISTS') ? taken(runId) : error;
        }),
    );
  }

  /** The run's events as they happen; stopping the iteration early cancels the run. */
  stream(input: I, options: WorkflowRunOptions = {}): AsyncGenerator<WorkflowEvent, void, undefined> {
    return streamEvents<WorkflowEvent>(options.signal, (signal, push) =>
      this.run(input, { ...options, signal, onEvent: push }),
    );
  }

  /** Continues a run that did not complete, from its last finished step (finished steps are not run again). */
  async resume(
    runId: string,
    options: { signal?: AbortSignal; onEvent?: (event: WorkflowEvent) => void } = {},
  ): Promise<WorkflowRunResult> {
    // As it really stands: a run of a dead instance is taken over (or marked interrupted) first.
    const record = await this.#engine.current(runId);
    this.#checkResumable(runId, record);
    await ensureHeartbeat(this.#deps.kernel.instance);
    return this.#launch(options.onEvent, async (drive, listener) => {
      const reopened = await this.#engine.reopen(record!, drive, { signal: options.signal, listener });
      if (reopened) return reopened;
      // Another resume (here or on another instance) took it first.
      const now = await this.#engine.get(runId);
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_RUN_ACTIVE',
        `workflow run "${runId}" is ${now?.status ?? 'gone'}${now?.status === 'running' ? ` on instance ${now.instance}` : ''}: wait for it, or cancel it there`,
      );
    });
  }

  resumeStream(
    runId: string,
    options: { signal?: AbortSignal } = {},
  ): AsyncGenerator<WorkflowEvent, void, undefined> {
    return streamEvents<WorkflowEvent>(options.signal, (signal, push) =>
      this.resume(runId, { signal, onEvent: push }),
    );
  }

  /**
   * Records a run as `queued` for whichever instance has room (the engine's queued runs, claimed
   * from the runs table); resolves with its header once stored. Input errors reject here.
   */
  async enqueue(input: I, options: Omit<WorkflowRunOptions, 'signal'> = {}): Promise<RunHeader> {
    const runId = options.runId ?? newRunId();
    const data = this.#checkInput(input, runId);
    const record = await this.#engine
      .queue(this.#runOptions(runId, data, options.principal))
      .catch((error: unknown) => {
        throw HubosError.is(error, 'RUN_EXISTS') ? taken(runId) : error;
      });
    return workflowHeader(record);
  }

  /**
   * Cancels a run wherever it is — queued, running here or on another instance — and resolves once
   * it has ended: true; false when it is not a run of this workflow still going.
   */
  async cancel(runId: string): Promise<boolean> {
    const record = await this.#engine.get(runId);
    if (record?.agent !== this.#kind || (record.status !== 'queued' && record.status !== 'running'))
      return false;
    try {
      await this.#engine.cancel(runId);
      return true;
    } catch (error) {
      if (HubosError.is(error, 'RUN_ENDED') || HubosError.is(error, 'RUN_NOT_FOUND')) return false;
      throw error;
    }
  }

  /** Cancels every run of this process and waits for each to record how it ended (kernel close). */
  async close(): Promise<void> {
    await Promise.all(this.active.map((runId) => this.#engine.cancel(runId).catch(() => undefined)));
  }

  /** A run of this workflow as recorded (queued, running, ended or interrupted), with its steps. */
  async getRun(runId: string): Promise<WorkflowRunRecord | undefined> {
    const record = await this.#engine.get(runId);
    if (record?.agent !== this.#kind) return undefined;
    return workflowRun(record, (await this.#engine.steps(runId)) ?? []);
  }

  /**
   * This workflow's runs (without their steps), newest first: one page of the runs table, `limit`
   * long, of `query.owner`'s runs only when given (HubOS: a caller that is not an admin), older
   * than run `query.before` when given.
   */
  async listRuns(limit = 50, query: { owner?: string; before?: string } = {}): Promise<RunHeader[]> {
    const table = await this.#engine.table();
    const records = await table.list({
      agent: this.#kind,
      limit: Math.min(Math.max(1, Math.floor(limit)), 200),
      ...(query.owner !== undefined ? { owner: query.owner } : {}),
      ...(query.before !== undefined ? { before: query.before } : {}),
    });
    return records.map(workflowHeader);
  }

  /**
   * The driver of a run the engine hands to this instance: a queued run it claimed, or (with
   * `autoResume`) a run of a dead instance it took over. Nobody waits for it here.
   */
  driver(): RunDriver {
    return this.#driver(() => undefined);
  }

  /** The input as JSON, once it and the run id are valid. */
  #checkInput(input: I, runId: string): unknown {
    if (typeof runId !== 'string' || !RUN_ID.test(runId))
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_INPUT_INVALID',
        `invalid run id ${JSON.stringify(runId)}: use 1 to 200 letters, digits, "_", ".", ":" or "-"`,
      );
    // The state holds JSON, as the table does: what a step reads now is what it reads after a resume.
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

  #checkResumable(runId: string, record: RunRecord | undefined): void {
    if (record?.agent !== this.#kind)
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_RUN_NOT_FOUND',
        `workflow "${this.name}" has no run "${runId}"`,
      );
    if (record.status === 'completed')
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_RUN_FINISHED',
        `workflow run "${runId}" already completed: start a new run`,
      );
    if (record.status === 'queued')
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_RUN_ACTIVE',
        `workflow run "${runId}" is queued: it starts when an instance has room`,
      );
    if (record.status === 'running')
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_RUN_ACTIVE',
        `workflow run "${runId}" is running on instance ${record.instance}: wait for it, or cancel it there`,
      );
  }

  /**
   * Starts a run on the engine (`start`, with the driver and the caller's listener) and resolves
   * with its result once the engine has written its end: the caller hears `workflow-finish` then,
   * so a resume right after it finds the run ended.
   */
  async #launch(
    onEvent: Listener | undefined,
    start: (drive: RunDriver, listener: RunListener) => Promise<RunRecord>,
  ): Promise<WorkflowRunResult> {
    let result: WorkflowRunResult | undefined;
    // A listener that throws must not fail the run (nor record a finished step twice).
    const hear = (event: WorkflowEvent) => {
      try {
        onEvent?.(event);
      } catch (error) {
        this.#deps.kernel.logger.warn(
          `workflow "${this.name}": an event listener threw: ${(error as Error).message}`,
        );
      }
    };
    const listener: RunListener = (event) => {
      const own = event as unknown as WorkflowEvent;
      if (own.type !== 'workflow-finish') hear(own);
    };
    const record = await start(
      this.#driver((done) => {
        result = done;
      }),
      listener,
    );
    const ended = await this.#engine.wait(record.id);
    const final = settle(result, ended, record.id);
    hear({ type: 'workflow-finish', runId: record.id, result: final });
    return final;
  }

  /** What runs a run of this workflow under the engine: its steps, from the ones it kept. */
  #driver(done: (result: WorkflowRunResult) => void): RunDriver {
    return async (ctx) => {
      const { runId, signal } = ctx;
      const engine = this.#engine;
      this.#active.add(runId);
      try {
        const record = await engine.get(runId);
        if (!record) throw new HubosError('RUN_NOT_FOUND', `no run "${runId}"`);
        const table = await engine.table();
        // Steps it finished before (a resumed run) are replayed, not run again.
        const run = workflowRun(record, record.resumes ? await table.steps(runId) : []);
        delete run.error;
        const keeper = new StepKeeper(table, engine.instanceId, run);
        const emit = (event: WorkflowEvent) => ctx.onEvent(event as unknown as AgentEvent);
        const asked = record.resumes ? await this.#askedBefore(runId) : undefined;
        const outcome = await this.#execute(keeper, signal, emit, asked);
        done(outcome);
        emit({ type: 'workflow-finish', runId, result: outcome });
        // The engine records the end: a failure is thrown, a cancel returns with the signal aborted.
        if (outcome.status === 'failed') throw failureOf(outcome);
        if (outcome.status === 'cancelled' && !signal.aborted)
          throw new HubosError('RUN_CANCELLED', `workflow run ${runId} was cancelled`);
        return outcome.output;
      } finally {
        this.#active.delete(runId);
      }
    };
  }

  /**
   * The tool calls of a resumed run whose approval is stored and still stands: pending (its
   * human may yet decide it, here) or decided since its instance died. One interrupted had its
   * requests cancelled: those are asked anew.
   */
  async #askedBefore(runId: string): Promise<ReadonlySet<string>> {
    const stored = await this.#deps.kernel.approvals.list(runId, { all: true });
    const standing = stored.filter((approval) => ['pending', 'approved', 'denied'].includes(approval.status));
    return new Set(standing.map((approval) => approval.callId));
  }

  async #execute(
    keeper: StepKeeper,
    signal: AbortSignal,
    emit: (event: WorkflowEvent) => void,
    askedBefore: ReadonlySet<string> | undefined,
  ): Promise<WorkflowRunResult> {
    const { runId, input, owner } = keeper.record;
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
      ...(owner !== undefined ? { principal: owner } : {}),
      input,
      recorder: keeper,
      ...(askedBefore ? { askedBefore } : {}),
      outputs: {},
      emit,
    };
    emit({ type: 'workflow-start', runId, workflow: this.name, input, resumed: keeper.record.resumes > 0 });
    try {
      const records = await runSequence(
        this.definition.steps as WorkflowDefinition['steps'],
        ctx,
        rootScope(signal),
      );
      const state = Object.freeze({
        runId,
        workflow: this.name,
        input: input as I,
        steps: { ...ctx.outputs },
        iterations: {},
      });
      const output = this.definition.output ? await this.definition.output(state) : records.at(-1)?.output;
      keeper.finish('completed', toJson(output, `workflow "${this.name}" output`));
    } catch (error) {
      if (error instanceof StepFailure) keeper.finish('failed', undefined, error.failure);
      else if (error instanceof StepCancelled || signal.aborted)
        keeper.finish('cancelled', undefined, {
          code: 'RUN_CANCELLED',
          message: `workflow run ${runId} was cancelled`,
        });
      else keeper.finish('failed', undefined, toWorkflowError(error, ''));
    }
    return structuredClone(keeper.record);
  }
}

/** A run started without a caller (code, the CLI) has no owner: admins and the keyless server see it. */
function principalOf(id: string | undefined): Principal {
  return { id: id ?? '', kind: 'local' };
}

function taken(runId: string): HubosError {
  return WORKFLOW_ERROR_CODES.create(
    'WORKFLOW_RUN_ACTIVE',
    `workflow run "${runId}" already exists: pick another run id`,
  );
}

/** The failure the engine records: the failing step's error (its step is read back from the step rows). */
function failureOf(result: WorkflowRunResult): HubosError {
  const error = result.error ?? { code: 'RUN_FAILED', message: 'the workflow failed' };
  return new HubosError(error.code as never, error.message);
}

/**
 * The result the caller gets: what the run did here, unless the engine says otherwise (another
 * instance took the run over: it did not end here).
 */
function settle(
  result: WorkflowRunResult | undefined,
  ended: RunRecord | undefined,
  runId: string,
): WorkflowRunResult {
  if (result && ended?.status !== 'interrupted') return result;
  const error = ended?.error ?? {
    code: 'RUN_INTERRUPTED',
    message: `workflow run ${runId} did not end here`,
  };
  if (result) return { ...result, status: 'interrupted', error };
  // It ended before its driver ran (cancelled at once): as the engine recorded it.
  if (!ended) throw new HubosError('RUN_NOT_FOUND', `no run "${runId}"`);
  return workflowRun(ended, []);
}
