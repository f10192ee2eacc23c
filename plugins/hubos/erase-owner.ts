import { readEntries, type Store } from '../../core/index.ts';
import { eraseRunsOf, openRunTable } from '../../core/internal.ts';

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

const APPROVALS = 'approvals';
const TASKS = 'hubos:a2a:tasks';
const TASK_RUNS = 'hubos:a2a:task-runs';

/**
 * Removes everything `owner` has in the store: its ended runs and their steps, its sessions' messages
 * (of every agent named), its approvals and its A2A tasks. Runs still going are left and counted.
 * Records other than runs are key/value entries, each namespace read in one statement.
 */
export async function eraseOwner(store: Store, owner: string, agents: readonly string[]): Promise<Erased> {
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
  let approvals = 0;
  for (const { key, value } of await readEntries(store, APPROVALS)) {
    const record = value as { principal?: string };
    if ((record.principal ?? 'local') === owner && (await store.delete(APPROVALS, key))) approvals++;
  }
  let tasks = 0;
  for (const { key, value } of await readEntries(store, TASKS)) {
    if ((value as { owner?: string }).owner !== owner) continue;
    await store.delete(TASK_RUNS, key);
    if (await store.delete(TASKS, key)) tasks++;
  }
  return { owner, runs, sessionMessages, approvals, tasks, activeRuns };
}
