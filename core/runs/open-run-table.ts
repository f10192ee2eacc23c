import type { ApprovalTable } from '../approvals/approval-table.ts';
import { importStoredApprovals } from '../approvals/import-stored-approvals.ts';
import type { RecordRows } from '../records/record-rows.ts';
import { importStoredSessions } from '../sessions/import-stored-sessions.ts';
import type { SessionTable } from '../sessions/session-table.ts';
import { MemoryStore } from '../store/memory.ts';
import type { Store } from '../store/store.ts';
import { importStoredRuns } from './import-stored-runs.ts';
import type { RunTable } from './run-table.ts';

/** The tables of a store: runs (and their steps), approvals, sessions and plugins' records, in one database. */
interface StoreTables {
  runs: RunTable;
  approvals: ApprovalTable;
  sessions: SessionTable;
  records: RecordRows;
}

const opened = new WeakMap<Store, Promise<StoreTables>>();

/**
 * The runs tables of a store, made (and migrated) once per store: in its SQLite file, in its
 * PostgreSQL schema, or in memory for the memory store or a store of one's own. Runs a store kept
 * as key/value records (HubOS before its run engine) move into them at the first open.
 * @internal
 */
export async function openRunTable(store: Store): Promise<RunTable> {
  return (await openTables(store)).runs;
}

/**
 * The approvals table of a store, beside its runs tables (opened with them). Approvals a store
 * kept as key/value records move into it at the first open.
 * @internal
 */
export async function openApprovalTable(store: Store): Promise<ApprovalTable> {
  return (await openTables(store)).approvals;
}

/**
 * The sessions tables of a store, beside its runs tables (opened with them). Sessions a store kept
 * as key/value entries move into them at the first open.
 * @internal
 */
export async function openSessionTable(store: Store): Promise<SessionTable> {
  return (await openTables(store)).sessions;
}

/**
 * The records table of a store (what every typed record table of a plugin reads), beside its runs
 * tables (opened with them).
 * @internal
 */
export async function openRecordRows(store: Store): Promise<RecordRows> {
  return (await openTables(store)).records;
}

function openTables(store: Store): Promise<StoreTables> {
  let tables = opened.get(store);
  if (!tables) {
    tables = open(store);
    opened.set(store, tables);
    tables.catch(() => opened.delete(store));
  }
  return tables;
}

async function open(store: Store): Promise<StoreTables> {
  const tables = await tablesOf(store);
  if (!(store instanceof MemoryStore)) await importStoredRuns(store, tables.runs);
  // Also for the memory store: approvals written to it by hand (as before the table) still count.
  await importStoredApprovals(store, tables.approvals);
  await importStoredSessions(store, tables.sessions);
  return tables;
}

async function tablesOf(store: Store): Promise<StoreTables> {
  // Loaded by name, not imported: only the store in use loads its driver.
  if (isPostgres(store)) {
    const { PostgresRunTable } = await import('./postgres-run-table.ts');
    const { PostgresApprovalTable } = await import('../approvals/postgres-approval-table.ts');
    const { PostgresSessionTable } = await import('../sessions/postgres-session-table.ts');
    const { PostgresRecordRows } = await import('../records/postgres-record-rows.ts');
    const query: PostgresLike['query'] = (sql, params, prepared) => store.query(sql, params, prepared);
    return {
      runs: new PostgresRunTable(query, store.schema),
      approvals: new PostgresApprovalTable(query, store.schema),
      sessions: new PostgresSessionTable(query, store.schema),
      records: new PostgresRecordRows(query, store.schema),
    };
  }
  const { SqliteRunTable } = await import('./sqlite-run-table.ts');
  const { SqliteApprovalTable } = await import('../approvals/sqlite-approval-table.ts');
  const { SqliteSessionTable } = await import('../sessions/sqlite-session-table.ts');
  const { SqliteRecordRows } = await import('../records/sqlite-record-rows.ts');
  const { migrateSqlite } = await import('../db/sqlite-migrations.ts');
  const { RUNS_SQLITE_MIGRATIONS } = await import('./run-schema.ts');
  const { SqliteStore } = await import('../store/sqlite.ts');
  if (store instanceof SqliteStore) {
    migrateSqlite(store.database, RUNS_SQLITE_MIGRATIONS, store.path);
    return {
      runs: new SqliteRunTable(store.database, store.path),
      approvals: new SqliteApprovalTable(store.database, store.path),
      sessions: new SqliteSessionTable(store.database, store.path),
      records: new SqliteRecordRows(store.database, store.path),
    };
  }
  // The memory store, or a store of one's own: runs, approvals, sessions and records live as long as the process.
  const db = new (process.getBuiltinModule('node:sqlite').DatabaseSync)(':memory:');
  migrateSqlite(db, RUNS_SQLITE_MIGRATIONS, ':memory:');
  return {
    runs: new SqliteRunTable(db, 'memory'),
    approvals: new SqliteApprovalTable(db, 'memory'),
    sessions: new SqliteSessionTable(db, 'memory'),
    records: new SqliteRecordRows(db, 'memory'),
  };
}

/** The PostgreSQL store, told by what it offers: importing its class would load its driver. */
function isPostgres(store: Store): store is Store & PostgresLike {
  const candidate = store as Partial<PostgresLike>;
  return typeof candidate.query === 'function' && typeof candidate.schema === 'string';
}

interface PostgresLike {
  schema: string;
  query<R>(
    sql: string,
    params: unknown[],
    prepared?: boolean,
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}
