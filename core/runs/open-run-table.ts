import { MemoryStore } from '../store/memory.ts';
import type { Store } from '../store/store.ts';
import { importStoredRuns } from './import-stored-runs.ts';
import type { RunTable } from './run-table.ts';

const tables = new WeakMap<Store, Promise<RunTable>>();

/**
 * The runs tables of a store, made (and migrated) once per store: in its SQLite file, in its
 * PostgreSQL schema, or in memory for the memory store or a store of one's own. Runs a store kept
 * as key/value records (HubOS before its run engine) move into them at the first open.
 * @internal
 */
export function openRunTable(store: Store): Promise<RunTable> {
  let table = tables.get(store);
  if (!table) {
    table = open(store);
    tables.set(store, table);
    table.catch(() => tables.delete(store));
  }
  return table;
}

async function open(store: Store): Promise<RunTable> {
  const table = await tableOf(store);
  if (!(store instanceof MemoryStore)) await importStoredRuns(store, table);
  return table;
}

async function tableOf(store: Store): Promise<RunTable> {
  // Loaded by name, not imported: only the store in use loads its driver.
  if (isPostgres(store)) {
    const { PostgresRunTable } = await import('./postgres-run-table.ts');
    return new PostgresRunTable((sql, params) => store.query(sql, params), store.schema);
  }
  const { SqliteRunTable } = await import('./sqlite-run-table.ts');
  const { migrateSqlite } = await import('../db/sqlite-migrations.ts');
  const { RUNS_SQLITE_MIGRATIONS } = await import('./run-schema.ts');
  const { SqliteStore } = await import('../store/sqlite.ts');
  if (store instanceof SqliteStore) {
    migrateSqlite(store.database, RUNS_SQLITE_MIGRATIONS, store.path);
    return new SqliteRunTable(store.database, store.path);
  }
  // The memory store, or a store of one's own: the runs live as long as the process.
  const db = new (process.getBuiltinModule('node:sqlite').DatabaseSync)(':memory:');
  migrateSqlite(db, RUNS_SQLITE_MIGRATIONS, ':memory:');
  return new SqliteRunTable(db, 'memory');
}

/** The PostgreSQL store, told by what it offers: importing its class would load its driver. */
function isPostgres(store: Store): store is Store & PostgresLike {
  const candidate = store as Partial<PostgresLike>;
  return typeof candidate.query === 'function' && typeof candidate.schema === 'string';
}

interface PostgresLike {
  schema: string;
  query<R>(sql: string, params: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}
