import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { errorMessage, HubosError } from '../errors.ts';
import type { Store, StoreValue } from './store.ts';

export interface SqliteStoreOptions {
  /** How long a write waits for another process's lock before failing. */
  busyTimeoutMs?: number;
}

/**
 * The embedded Store: one SQLite file (node:sqlite, no native build) in WAL mode, so several
 * processes can share it and a crash loses nothing that was written.
 */
export class SqliteStore implements Store {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #get: StatementSync;
  readonly #set: StatementSync;
  readonly #delete: StatementSync;
  readonly #list: StatementSync;
  readonly #insertNew: StatementSync;
  readonly #replace: StatementSync;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    let db: DatabaseSync | undefined;
    try {
      if (path !== ':memory:') ensureDir(dirname(path));
      this.#db = db = new DatabaseSync(path, { timeout: options.busyTimeoutMs ?? 5_000 });
      this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
      this.#db.exec(
        'CREATE TABLE IF NOT EXISTS kv (namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (namespace, key)) WITHOUT ROWID',
      );
      // Prepared here too: a file whose `kv` table is someone else's fails as STORE_FAILED.
      this.#get = this.#db.prepare('SELECT value FROM kv WHERE namespace = ? AND key = ?');
      this.#set = this.#db.prepare(
        'INSERT INTO kv (namespace, key, value, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
      );
      this.#delete = this.#db.prepare('DELETE FROM kv WHERE namespace = ? AND key = ?');
      this.#list = this.#db.prepare(
        // The range lets SQLite use the primary key index; the substr check keeps it exact.
        'SELECT key FROM kv WHERE namespace = ?1 AND key >= ?2 AND key < ?2 || char(1114111) AND substr(key, 1, length(?2)) = ?2 ORDER BY key',
      );
      this.#insertNew = this.#db.prepare(
        'INSERT INTO kv (namespace, key, value, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (namespace, key) DO NOTHING',
      );
      this.#replace = this.#db.prepare(
        'UPDATE kv SET value = ?, updated_at = ? WHERE namespace = ? AND key = ? AND value = ?',
      );
    } catch (error) {
      if (db?.isOpen) db.close();
      throw new HubosError(
        'STORE_FAILED',
        `cannot open the store at ${path}: ${errorMessage(error)} (check the file is a SQLite database the process may write, or set store.path in agent.config.ts)`,
        { cause: error, details: { path } },
      );
    }
  }

  async get<T extends StoreValue = StoreValue>(namespace: string, key: string): Promise<T | undefined> {
    const row = this.#run(() => this.#get.get(namespace, key)) as { value: string } | undefined;
    return row === undefined ? undefined : (JSON.parse(row.value) as T);
  }

  async set(namespace: string, key: string, value: StoreValue): Promise<void> {
    const json = JSON.stringify(value);
    this.#run(() => this.#set.run(namespace, key, json, Date.now()));
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    const result = this.#run(() => this.#delete.run(namespace, key));
    return Number(result.changes) > 0;
  }

  async list(namespace: string, prefix = ''): Promise<string[]> {
    const rows = this.#run(() => this.#list.all(namespace, prefix)) as { key: string }[];
    return rows.map((row) => row.key);
  }

  // One statement each way, so SQLite's write lock makes it atomic across processes sharing the file.
  async compareAndSet(
    namespace: string,
    key: string,
    expected: StoreValue | undefined,
    next: StoreValue,
  ): Promise<boolean> {
    const json = JSON.stringify(next);
    const result = this.#run(() =>
      expected === undefined
        ? this.#insertNew.run(namespace, key, json, Date.now())
        : this.#replace.run(json, Date.now(), namespace, key, JSON.stringify(expected)),
    );
    return Number(result.changes) > 0;
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  #run<T>(operation: () => T): T {
    try {
      return operation();
    } catch (error) {
      throw new HubosError('STORE_FAILED', `store ${this.path}: ${errorMessage(error)}`, { cause: error });
    }
  }
}

// Not `mkdirSync(dir, { recursive: true })`: under /proc, mkdir answers ENOENT for a parent that
// exists, and Node's recursive mkdir retries that for ever, hanging the process at startup.
function ensureDir(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) ensureDir(parent);
  try {
    mkdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
