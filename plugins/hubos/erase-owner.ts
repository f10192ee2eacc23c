import { ExperimentStore, type Store } from '../../core/index.ts';
import {
  eraseKeptResults,
  eraseMemoryOf,
  eraseRunsOf,
  eraseSummariesOf,
  openApprovalTable,
  openRunTable,
  openSessionTable,
} from '../../core/internal.ts';
import { taskTables } from './a2a-task-records.ts';

/** What an erasure removed: counts of each kind of record. */
export interface Erased {
  owner: string;
  runs: number;
  sessions: number;
  sessionMessages: number;
  /** Summaries of its sessions' older turns (compaction). */
  contextSummaries: number;
  approvals: number;
  tasks: number;
  /** Experiments (evaluations of a dataset) with their cases. */
  experiments: number;
  /** Tool results its runs kept because they were too large for the model. */
  keptResults: number;
  /** What memory kept beside the sessions: working memory documents and recall vectors. */
  memories: number;
  /** Runs of the owner still queued or running: cancel them, then erase again. */
  activeRuns: number;
}

/**
 * Removes everything `owner` has in the store: its ended runs and their steps, its sessions with
 * their messages and summaries (of every agent, named in the config or not), its approvals, its A2A
 * tasks, its experiments, the tool results its runs kept, and its memory (working memory, recall vectors).
 * Runs still going are left and counted. All are rows of their tables, deleted a batch at a time
 * by their owner index.
 */
export async function eraseOwner(store: Store, owner: string): Promise<Erased> {
  // Approvals first: a run erased would take its own with it, uncounted. An approval asked for
  // nobody ('') was the keyless server's, whose one caller is `local`.
  const approvalTable = await openApprovalTable(store);
  let approvals = 0;
  for (const who of owner === 'local' ? ['local', ''] : [owner])
    for (let batch = -1; batch !== 0; approvals += batch) batch = await approvalTable.deleteOwned(who, 500);
  const table = await openRunTable(store);
  const runs = await eraseRunsOf(table, owner);
  const activeRuns =
    (await table.list({ owner, status: 'running', limit: 200 })).length +
    (await table.list({ owner, status: 'queued', limit: 200 })).length;
  // The keyless caller's sessions (plain ids) are owned by `local`, as every key's are by its id.
  const sessionTable = await openSessionTable(store);
  let sessions = 0;
  let sessionMessages = 0;
  for (let batch = ERASE_BATCH; batch === ERASE_BATCH; ) {
    const deleted = await sessionTable.deleteOwned(owner, ERASE_BATCH);
    batch = deleted.sessions;
    sessions += deleted.sessions;
    sessionMessages += deleted.messages;
  }
  const contextSummaries = await eraseSummariesOf(store, owner);
  // Tasks by the owner index, each with its link to its run.
  const taskTable = await taskTables(store);
  let tasks = 0;
  for (let batch = ERASE_BATCH; batch === ERASE_BATCH; tasks += batch) {
    const keys = await taskTable.tasks.deleteWhere({ owner, limit: ERASE_BATCH });
    await taskTable.runs.deleteKeys(keys);
    batch = keys.length;
  }
  // Experiments by the owner index: each listed page is deleted, so the next list starts afresh.
  const experimentStore = new ExperimentStore(store);
  let experiments = 0;
  for (;;) {
    const page = await experimentStore.list({ owner, limit: ERASE_BATCH });
    for (const experiment of page.experiments) if (await experimentStore.delete(experiment.id)) experiments++;
    if (!page.next) break;
  }
  const keptResults = await eraseKeptResults(store, owner);
  // Sessions took their search index with them; memory's own records go by the owner index.
  const memories = await eraseMemoryOf(store, owner);
  return {
    owner,
    runs,
    sessions,
    sessionMessages,
    contextSummaries,
    approvals,
    tasks,
    experiments,
    keptResults,
    memories,
    activeRuns,
  };
}

const ERASE_BATCH = 500;
