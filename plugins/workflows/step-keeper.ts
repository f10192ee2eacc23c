import { errorMessage, HubosError, type RunTable } from '../../core/index.ts';
import { addUsage } from '../../core/internal.ts';
import { decisionRow, isReplayable, stepRow } from './run-view.ts';
import type { StepRecord, WorkflowError, WorkflowRunRecord, WorkflowRunStatus } from './types.ts';

/**
 * Keeps one run's progress as it goes: each finished step and each condition's answer is a row
 * of the run's steps, written before the run goes on, so a resumed run replays them. A write is
 * refused once another instance holds the run (it took it over): then the run stops here.
 */
export class StepKeeper {
  readonly record: WorkflowRunRecord;
  readonly #table: RunTable;
  readonly #instance: string;
  readonly #done = new Map<string, StepRecord>();
  #writing: Promise<void> = Promise.resolve();
  #lost = false;

  constructor(table: RunTable, instance: string, record: WorkflowRunRecord) {
    this.#table = table;
    this.#instance = instance;
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
    this.record.updatedAt = step.finishedAt;
    return this.#keep(stepRow(this.record.runId, step, this.record.resumes));
  }

  decide(key: string, value: boolean): Promise<void> {
    this.record.decisions[key] = value;
    return this.#keep(decisionRow(this.record.runId, key, value, this.record.resumes));
  }

  /** The run's end as this instance saw it (the engine writes it to the run's record). */
  finish(
    status: Exclude<WorkflowRunStatus, 'running' | 'queued'>,
    output: unknown,
    error?: WorkflowError,
  ): void {
    const now = new Date().toISOString();
    Object.assign(this.record, { status, finishedAt: now, updatedAt: now });
    if (output !== undefined) this.record.output = output;
    else delete this.record.output;
    if (error) this.record.error = error;
    else delete this.record.error;
  }

  // One write at a time: a step's row is numbered after the one before it.
  #keep(row: Parameters<RunTable['keepStep']>[0]): Promise<void> {
    const write = this.#writing.then(async () => {
      if (this.#lost || !(await this.#table.keepStep(row, this.#instance))) {
        this.#lost = true;
        throw new HubosError(
          'RUN_INTERRUPTED',
          `another instance took workflow run ${this.record.runId} over: this one stops`,
        );
      }
    });
    // A failed write fails the step that asked for it, not every later one.
    this.#writing = write.catch(() => undefined);
    return write.catch((error: unknown) => {
      if (HubosError.is(error, 'RUN_INTERRUPTED')) throw error;
      throw new HubosError(
        'STORE_FAILED',
        `workflow run ${this.record.runId}: could not record progress: ${errorMessage(error)}`,
        { cause: error },
      );
    });
  }
}
