import type { RunRecord, RunStep } from '../../core/index.ts';
import { addUsage, emptyUsage } from '../../core/internal.ts';
import type { StepRecord, WorkflowError, WorkflowRunRecord, WorkflowRunStatus } from './types.ts';

/** What the run engine names a workflow's runs: `workflow:<name>`, so lists filter by workflow. */
export const WORKFLOW_PREFIX = 'workflow:';

/** A run without its steps, decisions and output: what run lists show (read from one page of the table). */
export type RunHeader = Omit<WorkflowRunRecord, 'steps' | 'usage' | 'decisions' | 'output'>;

/** A finished step a resumed run does not redo: completed, or failed past with `continueOnError`. */
export const isReplayable = (step: StepRecord): boolean =>
  step.status === 'completed' || step.continued === true;

const CONTAINERS = new Set(['parallel', 'branch', 'loop']);

/** The header of a workflow run, from its engine record. */
export function workflowHeader(record: RunRecord): RunHeader {
  const header: RunHeader = {
    runId: record.id,
    workflow: record.agent.slice(WORKFLOW_PREFIX.length),
    ...(record.owner ? { owner: record.owner } : {}),
    status: record.status as WorkflowRunStatus,
    ...(record.instance ? { instance: record.instance } : {}),
    input: record.input === undefined ? undefined : JSON.parse(record.input),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt ?? record.createdAt,
    ...(record.finishedAt ? { finishedAt: record.finishedAt } : {}),
    resumes: record.resumes ?? 0,
  };
  if (record.status === 'cancelled')
    header.error = { code: 'RUN_CANCELLED', message: `workflow run ${record.id} was cancelled` };
  else if (record.error) header.error = { ...record.error };
  return header;
}

/**
 * A workflow run as its engine record and its step rows say. A step that failed or was cancelled
 * before the run was last resumed is not shown: the resumed run ran it again (as a new row).
 */
export function workflowRun(record: RunRecord, rows: readonly RunStep[]): WorkflowRunRecord {
  const attempt = record.resumes ?? 0;
  const steps: StepRecord[] = [];
  const decisions: Record<string, boolean> = {};
  for (const row of rows) {
    if (row.kind === 'decision') decisions[row.name] = row.detail === true;
    else if (row.kind === 'step') {
      const step = row.detail as StepRecord;
      if (isReplayable(step) || row.step >= attempt) steps.push(step);
    }
  }
  let usage = emptyUsage();
  // A parallel/branch/loop step's usage is its children's: count leaves only.
  for (const step of steps) if (!CONTAINERS.has(step.kind)) usage = addUsage(usage, step.usage);
  const { error, ...header } = workflowHeader(record);
  const run: WorkflowRunRecord = { ...header, steps, decisions, usage };
  if (record.status === 'completed' && record.result !== undefined && record.result !== null)
    run.output = record.result;
  if (error) run.error = failedStep(error, record.status, steps);
  return run;
}

/** The run's error, naming the step that failed it (the last failed step not gone past). */
function failedStep(error: WorkflowError, status: string, steps: readonly StepRecord[]): WorkflowError {
  if (status !== 'failed') return error;
  const step = steps.findLast(
    (s) =>
      s.status === 'failed' &&
      !s.continued &&
      s.error?.code === error.code &&
      s.error.message === error.message,
  );
  return step?.error?.stepId ? { ...error, stepId: step.error.stepId } : error;
}

/** The row a finished step is kept as; `attempt`: how many times the run had been resumed. */
export function stepRow(runId: string, step: StepRecord, attempt: number): RunStep {
  return {
    runId,
    seq: 0,
    kind: 'step',
    name: step.key,
    step: attempt,
    startedAt: step.startedAt,
    finishedAt: step.finishedAt,
    durationMs: step.durationMs,
    status: step.status === 'completed' ? 'ok' : 'error',
    usage: step.usage,
    ...(step.error ? { error: { code: step.error.code, message: step.error.message } } : {}),
    detail: step,
  };
}

/** The row a condition's answer is kept as. */
export function decisionRow(runId: string, key: string, value: boolean, attempt: number): RunStep {
  const now = new Date().toISOString();
  return {
    runId,
    seq: 0,
    kind: 'decision',
    name: key,
    step: attempt,
    startedAt: now,
    finishedAt: now,
    durationMs: 0,
    status: 'ok',
    detail: value,
  };
}
