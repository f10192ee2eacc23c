import { randomUUID } from 'node:crypto';
import {
  createAjv,
  createPolicy,
  describeErrors,
  HubosError,
  type JSONSchema,
  type KernelView,
  type Policy,
  type Store,
  streamEvents,
} from '../../core/index.ts';
import { checkDefinition } from './define.ts';
import { describeWorkflow, type WorkflowShape } from './describe.ts';
import { WORKFLOW_ERROR_CODES } from './errors.ts';
import { type ExecContext, rootScope, runSequence } from './executor.ts';
import type { TeamLike } from './leaf-steps.ts';
import {
  loadRunHeader,
  loadRunRecord,
  newRunRecord,
  type RunHeader,
  RunRecorder,
  reopenRunRecord,
  toJson,
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
/** Run ids appear in URLs and store keys (`<runId>/<seq>`): no "/". */
const RUN_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/** A run ready to execute: its record, and the controller reserved under its id. */
interface Opened {
  recorder: RunRecorder;
  controller: AbortController;
}

/**
 * A workflow bound to a kernel: `run`/`stream` a new run, `resume` one that stopped before its end
 * (a restart, a failure, a cancel) without redoing its finished steps, `cancel`, `getRun`, `listRuns`.
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

  /** Cancels a run of this process; false when it is not running here. */
  cancel(runId: string, reason = 'cancelled'): boolean {
    const run = this.#active.get(runId);
    run?.controller.abort(new HubosError('RUN_CANCELLED', reason));
    return run !== undefined;
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

  async #start(input: I, runId: string = randomUUID(), principal?: string): Promise<Opened> {
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
    const controller = this.#reserve(runId);
    try {
      if (await loadRunHeader(this.#store, runId))
        throw WORKFLOW_ERROR_CODES.create(
          'WORKFLOW_RUN_ACTIVE',
          `workflow run "${runId}" already exists: pick another run id`,
        );
      const recorder = new RunRecorder(this.#store, newRunRecord(runId, this.name, data, principal));
      await recorder.save();
      return { recorder, controller };
    } catch (error) {
      this.#active.get(runId)?.release();
      throw error;
    }
  }

  async #reopen(runId: string): Promise<Opened> {
    const controller = this.#reserve(runId);
    try {
      const record = await this.getRun(runId);
      if (!record)
        throw WORKFLOW_ERROR_CODES.create(
          'WORKFLOW_RUN_NOT_FOUND',
          `workflow "${this.name}" has no run "${runId}"`,
        );
      if (record.status === 'completed')
        throw WORKFLOW_ERROR_CODES.create(
          'WORKFLOW_RUN_FINISHED',
          `workflow run "${runId}" already completed: start a new run`,
        );
      // Steps that failed or were cancelled run again; finished ones are replayed from their records.
      const recorder = await reopenRunRecord(this.#store, record);
      record.status = 'running';
      record.resumes += 1;
      delete record.error;
      delete record.finishedAt;
      delete record.output;
      await recorder.save();
      return { recorder, controller };
    } catch (error) {
      this.#active.get(runId)?.release();
      throw error;
    }
  }

  async #execute(
    { recorder, controller }: Opened,
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
      const result = structuredClone(recorder.record);
      emit({ type: 'workflow-finish', runId, result });
      return result;
    } finally {
      signal?.removeEventListener('abort', abort);
      this.#active.get(runId)?.release();
    }
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
