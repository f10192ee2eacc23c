/**
 * A2A tasks/list and retention with many tasks kept: HUBOS_BENCH_TASKS (default 50,000) tasks of
 * one agent, half of them one caller's, on a SQLite file filled as the release before the task
 * tables kept them (key/value entries). Times what that release's list read at least (every
 * task's entry, parsed and sorted), the move into the tables at first open, then a page of 50 of
 * the caller's tasks (and of everyone's, as an admin), and a retention batch that finds nothing
 * to delete (every task still working).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { keyPrincipal, LOCAL, readEntries, type StoreWrite } from '../core/index.ts';
import { SqliteStore } from '../core/store/sqlite.ts';
import { PrincipalUser } from '../plugins/hubos/a2a/caller.ts';
import { HubOSTaskStore } from '../plugins/hubos/a2a/task-store.ts';
import { taskTables } from '../plugins/hubos/a2a-task-records.ts';
import { pruneTasks } from '../plugins/hubos/task-retention.ts';

const MANY = Number(process.env.HUBOS_BENCH_TASKS ?? 50_000);
const SAMPLES = 100;

const ms = async (work: () => Promise<unknown>) => {
  const start = performance.now();
  await work();
  return performance.now() - start;
};

async function p50(work: () => Promise<unknown>): Promise<number> {
  const took: number[] = [];
  for (let i = 0; i < SAMPLES; i++) took.push(await ms(work));
  return took.sort((a, b) => a - b)[Math.floor(took.length / 2)]!;
}

const dir = mkdtempSync(join(tmpdir(), 'hubos-task-list-'));
try {
  const store = new SqliteStore(join(dir, 'tasks.db'));
  let writes: StoreWrite[] = [];
  for (let i = 0; i < MANY; i++) {
    const at = new Date(Date.UTC(2026, 0, 1) + i * 1_000).toISOString();
    const task = {
      id: `t${i}`,
      contextId: `ctx${i % 100}`,
      status: { state: 'TASK_STATE_WORKING', timestamp: at },
      history: [{ role: 'ROLE_USER', parts: [{ text: `question ${i}` }] }],
    };
    writes.push({
      namespace: 'hubos:a2a:tasks',
      key: `helper/t${i}`,
      value: { owner: i % 2 ? 'ada' : 'bob', task },
    });
    if (writes.length === 5_000 || i === MANY - 1) {
      await store.batch(writes);
      writes = [];
    }
  }
  const before = await ms(async () => {
    const entries = await readEntries(store, 'hubos:a2a:tasks');
    entries.map((entry) => entry.value as { task: { status: { timestamp: string } } });
    entries.sort((a, b) => (a.key < b.key ? 1 : -1));
  });
  const moved = await ms(() => taskTables(store));
  const tasks = new HubOSTaskStore(store, 'helper');
  const as = (principal: typeof LOCAL) => new ServerCallContext({ user: new PrincipalUser(principal) });
  const ada = as(keyPrincipal('key-of-ada-0123456789', { id: 'ada' }));
  const request = { tenant: '', contextId: '', pageSize: 50, pageToken: '' } as never;
  const own = await p50(() => tasks.list(request, ada));
  const admin = await p50(() => tasks.list(request, as(LOCAL)));
  const prune = await p50(() => pruneTasks(store, { maxAgeDays: 1 }, 500));
  await store.close();
  console.log(
    `A2A tasks/list, ${MANY.toLocaleString('en')} tasks (SQLite file):\n` +
      `  the previous release's list read every entry: ${before.toFixed(0)} ms a list, at least\n` +
      `  moving them into the task tables at first open: ${moved.toFixed(0)} ms, once\n` +
      `  a page of 50 of one caller's (half of them): p50 ${own.toFixed(2)} ms (with totalSize)\n` +
      `  a page of 50 as an admin: p50 ${admin.toFixed(2)} ms (with totalSize)\n` +
      `  a retention batch that finds nothing over (all working): p50 ${prune.toFixed(2)} ms`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
