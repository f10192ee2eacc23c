import { type RunRecord, type RunTable, readEntries, type Store } from '../../core/index.ts';
import { decisionRow, stepRow, WORKFLOW_PREFIX } from './run-view.ts';
import type { StepRecord, WorkflowRunRecord } from './types.ts';

// Where workflow runs were kept as key/value records before they were runs of the engine.
const RUNS = 'workflow-runs';
const STEPS = 'workflow-steps';
const ACTIVE = 'workflow-runs:active';
const LEASES = 'workflow-leases';

type StoredHeader = Omit<WorkflowRunRecord, 'steps' | 'usage'>;

/**
 * Moves the workflow runs a store kept as key/value records into the runs tables, each then
 * removed: the header becomes the run's record (a running one is then judged by the engine's
 * sweep like any other), its steps and decisions rows of its steps. Several instances may do it
 * at once: a run or step already there is left as it is.
 */
export async function importStoredWorkflowRuns(store: Store, table: RunTable): Promise<number> {
  // Each namespace in one read: a store holding many old runs is not read a query per run.
  const headers = await readEntries(store, RUNS);
  const stepsOf = new Map<string, { key: string; step: StepRecord }[]>();
  for (const { key, value } of await readEntries(store, STEPS)) {
    const runId = key.slice(0, key.lastIndexOf('/'));
    const list = stepsOf.get(runId) ?? [];
    list.push({ key, step: value as unknown as StepRecord });
    stepsOf.set(runId, list);
  }
  let moved = 0;
  for (const { key: id, value } of headers) {
    const header = value as unknown as StoredHeader;
    const steps = (stepsOf.get(id) ?? []).sort((a, b) => (a.key < b.key ? -1 : 1));
    if (header?.workflow && header.status && header.createdAt) {
      await table.insert(recordOf(id, header));
      const attempt = header.resumes ?? 0;
      const rows = [
        ...steps.map(({ step }) => stepRow(id, step, attempt)),
        ...Object.entries(header.decisions ?? {}).map(([key, decided]) =>
          decisionRow(id, key, decided, attempt),
        ),
      ].map((row, index) => ({ ...row, seq: index + 1 }));
      await table.addSteps(rows);
      moved++;
    }
    for (const { key } of steps) await store.delete(STEPS, key);
    await store.delete(RUNS, id);
    await store.delete(ACTIVE, id);
    await store.delete(LEASES, id);
  }
  // What marked or leased runs that are no more.
  for (const namespace of [ACTIVE, LEASES])
    for (const key of await store.list(namespace)) await store.delete(namespace, key);
  return moved;
}

function recordOf(id: string, header: StoredHeader): RunRecord {
  const output = header.status === 'completed' ? header.output : undefined;
  return {
    id,
    agent: `${WORKFLOW_PREFIX}${header.workflow}`,
    ...(header.owner ? { owner: header.owner } : {}),
    status: header.status,
    via: 'workflow',
    // A queued run is anyone's to take: the table is its queue.
    ...(header.instance && header.status !== 'queued' ? { instance: header.instance } : {}),
    steps: 0,
    input: JSON.stringify(header.input ?? null),
    createdAt: header.createdAt,
    ...(header.status !== 'queued' ? { startedAt: header.createdAt } : {}),
    updatedAt: header.updatedAt ?? header.createdAt,
    ...(header.finishedAt ? { finishedAt: header.finishedAt } : {}),
    ...(output !== undefined ? { result: output as RunRecord['result'] } : {}),
    ...(header.error && header.status !== 'cancelled'
      ? { error: { code: header.error.code, message: header.error.message } }
      : {}),
    resumable: true,
    ...(header.resumes ? { resumes: header.resumes } : {}),
  };
}
