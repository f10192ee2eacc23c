// Typed record tables on SQLite (a file, two handles on it) and on the memory store's in-memory
// database; the PostgreSQL run of the same contract is in test/services/postgres-records.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore, recordTable, SqliteStore, type Store } from '../../core/index.ts';
import { recordsContract } from './records-contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'hubos-records-'));
const stores: SqliteStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
const sqlite = (path = join(dir, `r-${++files}.db`)) => {
  const store = new SqliteStore(path);
  stores.push(store);
  return store;
};

recordsContract('SQLite', {
  fresh: async () => sqlite(),
  another: async (store) => sqlite((store as SqliteStore).path),
});

recordsContract('memory', {
  fresh: async () => new MemoryStore(),
  // One process: the memory store's table is shared by whatever uses that store.
  another: async (store: Store) => store,
});

describe('SQLite record tables', () => {
  it('reads a page, a count and a batch to delete from the index the filter names, never the table', async () => {
    const store = sqlite();
    await recordTable(store, 'warm').count();
    const plan = (sql: string) =>
      (store.database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[])
        .map((row) => row.detail)
        .join('; ');
    const owner = plan(
      "SELECT value FROM hubos_records WHERE name = 'n' AND owner = 'ada' AND (time, key) < (5, 'k') ORDER BY time DESC, key DESC LIMIT 50",
    );
    expect(owner).toMatch(/USING INDEX hubos_records_owner/);
    expect(owner).not.toMatch(/TEMP B-TREE/);
    const tag = plan(
      "SELECT value FROM hubos_records WHERE name = 'n' AND tag = 'sent' ORDER BY time, key LIMIT 50",
    );
    expect(tag).toMatch(/USING INDEX hubos_records_tag/);
    expect(tag).not.toMatch(/TEMP B-TREE/);
    const time = plan(
      "SELECT value FROM hubos_records WHERE name = 'n' ORDER BY time DESC, key DESC LIMIT 50",
    );
    expect(time).toMatch(/USING INDEX hubos_records_time/);
    // Retention's delete: the tags' index, in its order, never the rows of other tags.
    const deleting = plan(
      "SELECT rowid FROM hubos_records WHERE name = 'n' AND tag IN ('a', 'b') AND time < 9 ORDER BY tag, time LIMIT 50",
    );
    expect(deleting).toMatch(
      /^SEARCH hubos_records USING (COVERING )?INDEX hubos_records_tag \(name=\? AND tag=\? AND time<\?\)/,
    );
    expect(deleting).not.toMatch(/TEMP B-TREE/);
  });

  it('keeps records across a reopen of the file', async () => {
    const path = join(dir, 'reopen.db');
    const first = sqlite(path);
    await recordTable<{ n: number }>(first, 'counts', { owner: () => 'ada' }).put('a', { n: 1 });
    await first.close();
    const again = recordTable<{ n: number }>(sqlite(path), 'counts');
    expect(await again.get('a')).toEqual({ n: 1 });
    expect((await again.list({ owner: 'ada' })).entries.map((e) => e.value.n)).toEqual([1]);
  });
});
