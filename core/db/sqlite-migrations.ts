import type { DatabaseSync } from 'node:sqlite';
import { HubosError } from '../errors.ts';
import { immediately } from './sqlite-transaction.ts';

/** One step of the SQLite schema: applied once, in order, recorded in `hubos_migrations`. */
export interface SqliteMigration {
  /** Increasing, never reused: a shipped migration is never edited, a change is a new one. */
  version: number;
  name: string;
  sql: string;
}

/**
 * Applies the migrations a file lacks, in one IMMEDIATE transaction: processes opening one file
 * together wait for the first, then find its migrations recorded. A file migrated by a newer
 * HubOS is refused rather than written with an older schema.
 */
export function migrateSqlite(db: DatabaseSync, migrations: readonly SqliteMigration[], path: string): void {
  immediately(db, () => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS hubos_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    const rows = db.prepare('SELECT version FROM hubos_migrations').all() as { version: number }[];
    const applied = new Set(rows.map((row) => Number(row.version)));
    const newest = Math.max(0, ...applied);
    const known = Math.max(0, ...migrations.map((migration) => migration.version));
    if (newest > known)
      throw new HubosError(
        'STORE_FAILED',
        `cannot open the store at ${path}: it was migrated by a newer HubOS (migration ${newest}, this version knows up to ${known}); upgrade HubOS, or set store.path to another file`,
        { details: { path, version: newest, known } },
      );
    const record = db.prepare('INSERT INTO hubos_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
    }
  });
}
