import { HubosError, type Store, type StoreValue } from '../../core/index.ts';
import { addUsage, emptyUsage } from '../../core/internal.ts';
import type { StepRecord, WorkflowError, WorkflowRunRecord, WorkflowRunStatus } from './types.ts';

/** Run headers (status, input, decisions, output), key: the run id. */
export const WORKFLOW_RUNS_NAMESPACE = 'workflow-runs';
/** One entry per finished step, key `<runId>/<seq>`: a step costs one small write, whatever the run's size. */
export const WORKFLOW_STEPS_NAMESPACE = 'workflow-steps';
/**
 * Runs not yet ended (queued or running), key the run id: what a sweep looks at, so finding the
 * runs of dead instances never reads every run.
 */
export const WORKFLOW_ACTIVE_NAMESPACE = 'workflow-runs:active';

/** The bus queue of `async` starts: a job `{ runId, workflow }` per queued run. */
export const WORKFLOW_QUEUE = 'workflows';
/** Where a cancel asked on one instance reaches the instance running the run: `{ runId, reason }`. */
export const WORKFLOW_CANCEL_CHANNEL = 'workflows:cancel';

export interface ActiveEntry {
  workflow: string;
  /** When it was marked (ms): a fresh entry may not have its header yet. */
  since: number;
}

/** A run without its steps: what run lists show. */
export type RunHeader = Omit<WorkflowRunRecord, 'steps' | 'usage'>;

/** A finished step a resumed run does not redo: completed, or failed past with `continueOnError`. */
export const isReplayable = (step: StepRecord): boolean =>
  step.status === 'completed' || step.continued === true;

const stepKey = (runId: string, seq: number) => `${runId}/${String(seq).padStart(6, '0')}`;

/** A new run's record, before its first step. */
export function newRunRecord(
  runId: string,
  workflow: string,
  input: unknown,
  owner: string | undefined,
  instance: string,
  status: 'running' | 'queued' = 'running',
): WorkflowRunRecord {
  const now = new Date().toISOString();
  return {
    runId,
    workflow,
    ...(owner !== undefined ? { owner } : {}),
    status,
    instance,
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
 * Keeps one run's record and writes its progress to the store as it goes: each finished step
 * and each condition's answer, so a resumed run can replay them. Writes go one at a time.
 */
export class RunRecorder {
  readonly record: WorkflowRunRecord;
  readonly #store: Store;
  readonly #done = new Map<string, StepRecord>();
  #seq: number;
  #writing: Promise<void> = Promise.resolve();
  /** Set when another instance took the run over: from then on this one writes nothing. */
  #fenced = false;

  constructor(store: Store, record: WorkflowRunRecord, nextSeq = record.steps.length) {
    this.#store = store;
    this.record = record;
    this.#seq = nextSeq;
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
    const key = stepKey(this.record.runId, this.#seq++);
    return this.#write(() => this.#store.set(WORKFLOW_STEPS_NAMESPACE, key, step as unknown as StoreValue));
  }

  decide(key: string, value: boolean): Promise<void> {
    this.record.decisions[key] = value;
    return this.save();
  }

  finish(
    status: Exclude<WorkflowRunStatus, 'running' | 'queued'>,
    output: unknown,
    error?: WorkflowError,
  ): Promise<void> {
    Object.assign(this.record, { status, finishedAt: new Date().toISOString() });
    if (output !== undefined) this.record.output = output;
    else delete this.record.output;
    if (error) this.record.error = error;
    else delete this.record.error;
    return this.save();
  }

  /** Writes the run's header (everything but the steps, which are written as they finish). */
  save(): Promise<void> {
    const header = this.#header();
    return this.#write(() => this.#store.set(WORKFLOW_RUNS_NAMESPACE, this.record.runId, header));
  }

  /** Writes the header of a new run; false when a run of that id already exists. */
  async create(): Promise<boolean> {
    const header = this.#header();
    let created = false;
    await this.#write(async () => {
      created = await this.#store.compareAndSet(
        WORKFLOW_RUNS_NAMESPACE,
        this.record.runId,
        undefined,
        header,
      );
    });
    return created;
  }

  /** Stops every write of this recorder: another instance now runs (and records) the run. */
  fence(): void {
    this.#fenced = true;
  }

  #header(): StoreValue {
    this.record.updatedAt = new Date().toISOString();
    const { steps: _steps, usage: _usage, ...header } = this.record;
    return header as unknown as StoreValue;
  }

  #write(work: () => Promise<void>): Promise<void> {
    const write = this.#writing.then(() => (this.#fenced ? undefined : work()));
    // A failed write fails the step that asked for it, not every later one.
    this.#writing = write.catch(() => undefined);
    return write.catch((error: unknown) => {
      throw new HubosError(
        'STORE_FAILED',
        `workflow run ${this.record.runId}: could not record progress: ${(error as Error).message}`,
        { cause: error },
      );
    });
  }
}

export async function loadRunHeader(store: Store, runId: string): Promise<RunHeader | undefined> {
  return (await store.get(WORKFLOW_RUNS_NAMESPACE, runId)) as RunHeader | undefined;
}

/** Replaces the header `from` (as read) with `to` only if nobody changed it meanwhile. */
export function swapRunHeader(store: Store, from: RunHeader, to: RunHeader): Promise<boolean> {
  return store.compareAndSet(
    WORKFLOW_RUNS_NAMESPACE,
    from.runId,
    from as unknown as StoreValue,
    { ...to, updatedAt: new Date().toISOString() } as unknown as StoreValue,
  );
}

/** Marks a run active (before its status becomes queued or running, so a crash leaves the mark). */
export function markActive(store: Store, runId: string, workflow: string): Promise<void> {
  const entry: ActiveEntry = { workflow, since: Date.now() };
  return store.set(WORKFLOW_ACTIVE_NAMESPACE, runId, entry as unknown as StoreValue);
}

/** Drops the mark (after the run's final status is written). */
export async function unmarkActive(store: Store, runId: string): Promise<void> {
  await store.delete(WORKFLOW_ACTIVE_NAMESPACE, runId);
}

/** Reads a run of `workflow` back, its steps in the order they finished; undefined when there is none. */
export async function loadRunRecord(
  store: Store,
  runId: string,
  workflow: string,
): Promise<WorkflowRunRecord | undefined> {
  const header = await loadRunHeader(store, runId);
  // Another workflow's run is not read any further (HubOS asks each workflow in turn).
  if (header?.workflow !== workflow) return undefined;
  const keys = await store.list(WORKFLOW_STEPS_NAMESPACE, `${runId}/`);
  const steps = (await Promise.all(
    keys.map((key) => store.get(WORKFLOW_STEPS_NAMESPACE, key)),
  )) as unknown as StepRecord[];
  let usage = emptyUsage();
  // A parallel/branch/loop step's usage is its children's: count leaves only.
  for (const step of steps)
    if (!['parallel', 'branch', 'loop'].includes(step.kind)) usage = addUsage(usage, step.usage);
  return { ...header, steps, usage };
}

/**
 * Opens a stored run for resuming: steps that failed or were cancelled are dropped (they run
 * again); finished ones stay, to be replayed.
 */
export async function reopenRunRecord(store: Store, record: WorkflowRunRecord): Promise<RunRecorder> {
  const keys = await store.list(WORKFLOW_STEPS_NAMESPACE, `${record.runId}/`);
  const kept: StepRecord[] = [];
  await Promise.all(
    record.steps.map((step, index) => {
      if (isReplayable(step)) {
        kept.push(step);
        return undefined;
      }
      return keys[index] ? store.delete(WORKFLOW_STEPS_NAMESPACE, keys[index]) : undefined;
    }),
  );
  const nextSeq = keys.length === 0 ? 0 : Number(keys.at(-1)!.split('/').at(-1)) + 1;
  record.steps = kept;
  const recorder = new RunRecorder(store, record, nextSeq);
  return recorder;
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
