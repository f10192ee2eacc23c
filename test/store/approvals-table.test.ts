// The approvals table on SQLite (a file, and the memory store's): a file the previous release
// wrote, two handles deciding at once, pages that read only pending rows, retention, erasure.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateSqlite } from '../../core/db/sqlite-migrations.ts';
import { MemoryStore, SqliteStore, type Store } from '../../core/index.ts';
import { openApprovalTable } from '../../core/runs/open-run-table.ts';
import { RUNS_SQLITE_MIGRATIONS } from '../../core/runs/run-schema.ts';
import { approvalsContract } from './approvals-contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'hubos-approvals-table-'));
const stores: SqliteStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
const sqlite = (path = join(dir, `a-${++files}.db`)) => {
  const store = new SqliteStore(path);
  stores.push(store);
  return store;
};

approvalsContract('SQLite', {
  fresh: async () => sqlite(),
  another: async (store) => sqlite((store as SqliteStore).path),
  async previous(approvals) {
    // The previous release: the runs tables' one migration, approvals as key/value records.
    const path = join(dir, `previous-${++files}.db`);
    const before = new SqliteStore(path);
    migrateSqlite(before.database, RUNS_SQLITE_MIGRATIONS.slice(0, 1), path);
    for (const record of approvals)
      await before.set('approvals', `${record.runId}/${record.callId}`, record as never);
    await before.close();
    return sqlite(path);
  },
});

approvalsContract('memory', {
  fresh: async () => new MemoryStore(),
  // One process: the memory store's table is shared by whatever uses that store.
  another: async (store: Store) => store,
  async previous(approvals) {
    const store = new MemoryStore();
    for (const record of approvals)
      await store.set('approvals', `${record.runId}/${record.callId}`, record as never);
    return store;
  },
});

describe('SQLite approvals table', () => {
  it("reads an owner's pending approvals through the pending rows' own index", async () => {
    const store = sqlite();
    await openApprovalTable(store);
    const plan = (sql: string) =>
      (store.database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[])
        .map((row) => row.detail)
        .join('; ');
    expect(
      plan(
        "SELECT record FROM hubos_approvals WHERE owner = 'alice' AND status = 'pending' ORDER BY requested_at, run_id, call_id LIMIT 50",
      ),
    ).toMatch(/USING (COVERING )?INDEX hubos_approvals_owner_status/);
    expect(
      plan(
        "SELECT record FROM hubos_approvals WHERE status = 'pending' ORDER BY requested_at, run_id, call_id LIMIT 50",
      ),
    ).toMatch(/USING (COVERING )?INDEX hubos_approvals_pending\b/);
  });

  it('refuses a file a newer release migrated further', async () => {
    const path = join(dir, `newer-${++files}.db`);
    const store = sqlite(path);
    await openApprovalTable(store);
    store.database
      .prepare('INSERT INTO hubos_migrations (version, name, applied_at) VALUES (99, ?, 0)')
      .run('x');
    await expect(openApprovalTable(sqlite(path))).rejects.toThrow(/migrated by a newer HubOS/);
  });
});
