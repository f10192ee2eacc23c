import type { Store } from '../../core/index.ts';
import { eraseRunsOf, openApprovalTable, openRunTable, sessionActivity } from '../../core/internal.ts';
import { taskTables } from './a2a-task-records.ts';

/** What an erasure removed: counts of each kind of record. */
export interface Erased {
  owner: string;
  runs: number;
  sessionMessages: number;
  approvals: number;
  tasks: number;
  /** Runs of the owner still queued or running: cancel them, then erase again. */
  activeRuns: number;
}

/**
 * Removes everything `owner` has in the store: its ended runs and their steps, its sessions' messages
 * (of every agent named), its approvals and its A2A tasks. Runs still going are left and counted.
 * Runs, approvals and tasks are rows of their tables, deleted a batch at a time by their owner
 * index; sessions are key/value entries, each namespace read in one statement.
 */
export async function eraseOwner(store: Store, owner: string, agents: readonly string[]): Promise<Erased> {
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
  let sessionMessages = 0;
  for (const agent of agents) {
    const namespace = `sessions:${agent}`;
    // The keyless server's one caller keeps plain session ids; every key's are `<owner>~<id>`.
    const keys =
      owner === 'local'
        ? (await store.list(namespace)).filter((key) => !key.slice(0, key.indexOf('/')).includes('~'))
        : await store.list(namespace, `${owner}~`);
    for (const key of keys) if (await store.delete(namespace, key)) sessionMessages++;
  }
  // The activity index names sessions by their key, which names the owner: those entries go too.
  await sessionActivity(store).forget((id) => {
    const session = id.slice(id.indexOf('/') + 1);
    return owner === 'local' ? !session.includes('~') : session.startsWith(`${owner}~`);
  });
  // Tasks by the owner index, each with its link to its run.
  const taskTable = await taskTables(store);
  let tasks = 0;
  for (let batch = ERASE_BATCH; batch === ERASE_BATCH; tasks += batch) {
    const keys = await taskTable.tasks.deleteWhere({ owner, limit: ERASE_BATCH });
    await taskTable.runs.deleteKeys(keys);
    batch = keys.length;
  }
  return { owner, runs, sessionMessages, approvals, tasks, activeRuns };
}

const ERASE_BATCH = 500;
