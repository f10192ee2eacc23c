// Memory across sessions on SQLite (a file) and on the memory store; PostgreSQL's run is in the
// services suite (test/services/postgres-memory.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { MemoryStore, SqliteStore } from '../../../core/index.ts';
import { memoryContract } from './memory-contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'hubos-memory-'));
const stores: SqliteStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

memoryContract('SQLite', async () => {
  const store = new SqliteStore(join(dir, `m-${stores.length}.db`));
  stores.push(store);
  return store;
});
memoryContract('the memory store', async () => new MemoryStore());
