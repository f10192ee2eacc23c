// A SQLite file made before the steps' trace columns (migrations 1-6) opens with them added
// (migration 7): its steps read as they were, new steps keep their trace and payload.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, expect, it } from 'vitest';
import { migrateSqlite } from '../../core/db/sqlite-migrations.ts';
import { SqliteStore } from '../../core/index.ts';
import { openRunTable } from '../../core/runs/open-run-table.ts';
import { RUNS_SQLITE_MIGRATIONS } from '../../core/runs/run-schema.ts';
import { runAt } from './run-table-contract.ts';
import { tracedSteps } from './step-trace-contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'hubos-trace-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('adds the trace columns to a file of the previous schema, keeping its steps', async () => {
  const path = join(dir, 'old.db');
  const old = new DatabaseSync(path);
  migrateSqlite(
    old,
    RUNS_SQLITE_MIGRATIONS.filter((m) => m.version <= 6),
    path,
  );
  const run = runAt(Date.now(), { status: 'completed' });
  old
    .prepare('INSERT INTO hubos_runs (id, agent, owner, via, status, created_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(run.id, run.agent, 'alice', 'rest', 'completed', Date.now());
  old
    .prepare(
      "INSERT INTO hubos_run_steps (run_id, seq, kind, name, step, started_at, finished_at, status) VALUES (?, 1, 'tool', 'echo', 1, 10, 25, 'ok')",
    )
    .run(run.id);
  old.close();

  const store = new SqliteStore(path);
  try {
    const table = await openRunTable(store);
    const versions = store.database.prepare('SELECT version FROM hubos_migrations ORDER BY version').all();
    expect(versions.map((row) => Number(row.version))).toEqual(RUNS_SQLITE_MIGRATIONS.map((m) => m.version));
    expect(await table.steps(run.id)).toEqual([
      expect.objectContaining({ seq: 1, kind: 'tool', name: 'echo', durationMs: 15 }),
    ]);
    expect((await table.step(run.id, 1))?.payload).toBeNull();
    const [, traced] = tracedSteps(run.id);
    await table.addSteps([{ ...traced!, seq: 2 }]);
    const read = await table.step(run.id, 2);
    expect(read?.step).toMatchObject({ track: traced!.track, permission: traced!.permission });
    expect(JSON.parse(read!.payload!)).toEqual({ input: { path: 'a.txt' }, output: 'ok' });
  } finally {
    await store.close();
  }
});
