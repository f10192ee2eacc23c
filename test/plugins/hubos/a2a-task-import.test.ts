// A2A tasks a store kept as key/value entries (the release before the task tables) move into the
// tables at the first open, once, whoever opens the file at the same time; the entries and the old
// activity index are removed, and a task saved since is never overwritten by its old entry.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateSqlite } from '../../../core/db/sqlite-migrations.ts';
import { LOCAL, SqliteStore } from '../../../core/index.ts';
import { RUNS_SQLITE_MIGRATIONS } from '../../../core/runs/run-schema.ts';
import { PrincipalUser } from '../../../plugins/hubos/a2a/caller.ts';
import { HubOSTaskStore } from '../../../plugins/hubos/a2a/task-store.ts';
import { taskTables } from '../../../plugins/hubos/a2a-task-records.ts';

const dir = mkdtempSync(join(tmpdir(), 'hubos-task-import-'));
const stores: SqliteStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});
const open = (path: string) => {
  const store = new SqliteStore(path);
  stores.push(store);
  return store;
};

const taskJson = (id: string, state: string, at: string) => ({
  id,
  contextId: 'ctx',
  status: { state, timestamp: at },
});

/** A file as the previous release left it: its four migrations, tasks and their index as entries. */
async function previousRelease(path: string, count: number): Promise<void> {
  const before = new SqliteStore(path);
  migrateSqlite(before.database, RUNS_SQLITE_MIGRATIONS.slice(0, 4), path);
  for (let i = 0; i < count; i++) {
    const at = new Date(Date.UTC(2026, 0, 1) + i * 1_000).toISOString();
    await before.set('hubos:a2a:tasks', `helper/t${i}`, {
      owner: i % 2 ? 'bob' : 'ada',
      task: taskJson(`t${i}`, i % 3 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING', at),
    });
    await before.set('hubos:a2a:task-runs', `helper/t${i}`, `run-${i}`);
    await before.set('hubos:a2a:task-activity', `${String(i).padStart(12, '0')}/helper/t${i}`, 0);
  }
  // One stored before owners were kept: its bare JSON.
  await before.set(
    'hubos:a2a:tasks',
    'helper/bare',
    taskJson('bare', 'TASK_STATE_FAILED', '2025-06-01T00:00:00.000Z'),
  );
  await before.set('hubos:a2a:task-activity-indexed', 'all', 1);
  await before.close();
}

describe('A2A tasks of the previous release', () => {
  it('move into the task tables once when two instances open the file at once, and the old entries go', async () => {
    const path = join(dir, 'previous.db');
    await previousRelease(path, 2_500);
    const [a, b] = [open(path), open(path)];
    const [here, there] = await Promise.all([taskTables(a), taskTables(b)]);
    expect(await here.tasks.count()).toBe(2_501);
    expect(await there.tasks.count({ owner: 'ada' })).toBe(1_250);
    expect(await here.tasks.count({ tag: 'TASK_STATE_WORKING' })).toBe(834);
    expect(await here.runs.count()).toBe(2_500);
    const newest = (await here.tasks.list({ limit: 1 })).entries[0];
    expect(newest).toMatchObject({
      key: 'helper/t2499',
      owner: 'bob',
      time: Date.UTC(2026, 0, 1) + 2_499_000,
    });
    const bare = (await here.tasks.list({ order: 'oldest', limit: 1 })).entries[0];
    expect(bare).toMatchObject({ key: 'helper/bare', owner: undefined, tag: 'TASK_STATE_FAILED' });
    for (const namespace of [
      'hubos:a2a:tasks',
      'hubos:a2a:task-runs',
      'hubos:a2a:task-activity',
      'hubos:a2a:task-activity-indexed',
    ])
      expect(await a.list(namespace), namespace).toEqual([]);
    const versions = a.database.prepare('SELECT version FROM hubos_migrations ORDER BY version').all();
    expect(versions.map((row) => Number(row.version))).toContain(6);
    // The task store reads them as before: the owner's, with their runs.
    const tasks = new HubOSTaskStore(b, 'helper');
    const context = new ServerCallContext({ user: new PrincipalUser(LOCAL) });
    expect((await tasks.load('t3', context))?.contextId).toBe('ctx');
    expect(await tasks.runOf('t3')).toBe('run-3');
    expect((await tasks.loadAny('bare'))?.id).toBe('bare');
  });

  it('never overwrites a task saved in its table with an old entry of it found later', async () => {
    const path = join(dir, 'late.db');
    await previousRelease(path, 1);
    const first = open(path);
    const { tasks } = await taskTables(first);
    const newer = { owner: 'ada', task: taskJson('t0', 'TASK_STATE_COMPLETED', '2026-02-01T00:00:00.000Z') };
    await tasks.put('helper/t0', newer);
    // An instance of the previous release still running writes the old entry again.
    await first.set('hubos:a2a:tasks', 'helper/t0', {
      owner: 'ada',
      task: taskJson('t0', 'TASK_STATE_WORKING', '2026-01-01T00:00:00.000Z'),
    });
    const later = await taskTables(open(path));
    expect(await later.tasks.get('helper/t0')).toEqual(newer);
    expect(await first.list('hubos:a2a:tasks')).toEqual([]);
  });
});
