import { addUsage, emptyUsage, HubosError, type Store, type StoreValue } from '../../core/index.ts';
import type { StepRecord, WorkflowError, WorkflowRunRecord, WorkflowRunStatus } from './types.ts';

export const WORKFLOW_RUNS_NAMESPACE = 'workflow-runs';

/** A finished step a resumed run does not redo: completed, or failed past with `continueOnError`. */
export const isReplayable = (step: StepRecord): boolean =>
  step.status === 'completed' || step.continued === true;

/** A new run's record, before its first step. */
export function newRunRecord(runId: string, workflow: string, input: unknown): WorkflowRunRecord {
  const now = new Date().toISOString();
  return {
    runId,
    workflow,
    status: 'running',
    input,
    steps: [],
    decisions: {},
    usage: emptyUsage(),
    createdAt: now,
    updatedAt: now,
    resumes: 0,
  };
}

/**
 * Keeps one run's record and writes it to the store after every finished step and every decision,
 * one write at a time (parallel steps finish together; the last write must hold them all).
 */
export class RunRecorder {
  readonly record: WorkflowRunRecord;
  readonly #store: Store;
  readonly #done = new Map<string, StepRecord>();
  #writing: Promise<void> = Promise.resolve();

  constructor(store: Store, record: WorkflowRunRecord) {
    this.#store = store;
    this.record = record;
    for (const step of record.steps) if (isReplayable(step)) this.#done.set(step.key, step);
  }

  /** The finished record of this step key, when a resumed run has one. */
  finished(key: string): StepRecord | undefined {
    return this.#done.get(key);
  }

  decision(key: string): boolean | undefined {
    return this.record.decisions[key];
  }

  /** `countUsage`: false for parallel/branch/loop steps, whose usage is their children's. */
  addStep(step: StepRecord, countUsage: boolean): Promise<void> {
    this.record.steps.push(step);
    if (isReplayable(step)) this.#done.set(step.key, step);
    if (countUsage) this.record.usage = addUsage(this.record.usage, step.usage);
    return this.save();
  }

  decide(key: string, value: boolean): Promise<void> {
    this.record.decisions[key] = value;
    return this.save();
  }

  finish(
    status: Exclude<WorkflowRunStatus, 'running'>,
    output: unknown,
    error?: WorkflowError,
  ): Promise<void> {
    const now = new Date().toISOString();
    Object.assign(this.record, { status, finishedAt: now });
    if (output !== undefined) this.record.output = output;
    else delete this.record.output;
    if (error) this.record.error = error;
    else delete this.record.error;
    return this.save();
  }

  save(): Promise<void> {
    this.record.updatedAt = new Date().toISOString();
    const snapshot = structuredClone(this.record) as unknown as StoreValue;
    const write = this.#writing.then(() =>
      this.#store.set(WORKFLOW_RUNS_NAMESPACE, this.record.runId, snapshot),
    );
    // A failed write fails the step that asked for it, not every later one.
    this.#writing = write.catch(() => undefined);
    return write.catch((error: unknown) => {
      throw new HubosError(
        'STORE_FAILED',
        `workflow run ${this.record.runId}: could not record progress: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    });
  }
}

/** Reads a run record back; undefined when there is none. */
export async function loadRunRecord(store: Store, runId: string): Promise<WorkflowRunRecord | undefined> {
  return (await store.get(WORKFLOW_RUNS_NAMESPACE, runId)) as WorkflowRunRecord | undefined;
}

/** A step's output as JSON, as the store will keep it (undefined stays undefined). */
export function toJson(value: unknown, where: string): unknown {
  if (value === undefined) return undefined;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
  } catch (error) {
    throw new HubosError(
      'RUN_FAILED',
      `${where}: the output is not JSON data (${(error as Error).message}); return plain data`,
    );
  }
}
