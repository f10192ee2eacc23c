import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
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
  /**
   * Writes waiting for the next commit, by `namespace\0key`: every write (a set, or a delete when
   * `json` is undefined) of one turn of the event loop goes in one transaction (a commit costs more
   * than the rows in it), resolved once committed. A delete resolves with whether the key was there.
   */
  #pending = new Map<string, PendingWrite>();
  #flushing: NodeJS.Immediate | undefined;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    let db: DatabaseSync | undefined;
    try {
      if (path !== ':memory:') ensureDir(dirname(path));
      this.#db = db = new (sqlite().DatabaseSync)(path, { timeout: options.busyTimeoutMs ?? 5_000 });
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
    // A write not yet committed is what this process reads back.
    const pending = this.#pending.get(`${namespace}\0${key}`);
    if (pending) return pending.json === undefined ? undefined : (JSON.parse(pending.json) as T);
    const row = this.#run(() => this.#get.get(namespace, key)) as { value: string } | undefined;
    return row === undefined ? undefined : (JSON.parse(row.value) as T);
  }

  set(namespace: string, key: string, value: StoreValue): Promise<void> {
    const json = JSON.stringify(value);
    if (!this.#db.isOpen) return Promise.reject(this.#failed(new Error('database is not open')));
    // Resolves once committed (with true, which a caller of set() ignores): no extra promise per write.
    return this.#queue(namespace, key, json) as Promise<unknown> as Promise<void>;
  }

  delete(namespace: string, key: string): Promise<boolean> {
    if (!this.#db.isOpen) return Promise.reject(this.#failed(new Error('database is not open')));
    return this.#queue(namespace, key, undefined);
  }

  #queue(namespace: string, key: string, json: string | undefined): Promise<boolean> {
    const id = `${namespace}\0${key}`;
    const done = deferred();
    const earlier = this.#pending.get(id);
    // A second write of one key in one turn replaces the first: both resolve with the commit. A
    // delete after a set of the same turn deletes a key that was there.
    const existed = (earlier?.existed ?? false) || earlier?.json !== undefined;
    this.#pending.set(id, { namespace, key, json, existed, done: [...(earlier?.done ?? []), done] });
    this.#flushing ??= setImmediate(() => this.#flush());
    return done.promise;
  }

  async list(namespace: string, prefix = ''): Promise<string[]> {
    this.#flush();
    const rows = this.#run(() => this.#list.all(namespace, prefix)) as { key: string }[];
    return rows.map((row) => row.key);
  }

  /** Commits the waiting writes in one transaction; one that fails is retried alone, so it fails alone. */
  #flush(): void {
    if (this.#flushing) clearImmediate(this.#flushing);
    this.#flushing = undefined;
    if (this.#pending.size === 0) return;
    const writes = [...this.#pending.values()];
    this.#pending = new Map();
    const now = Date.now();
    try {
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        const results = writes.map((write) => this.#write(write, now));
        this.#db.exec('COMMIT');
        writes.forEach((write, i) => {
          for (const done of write.done) done.resolve(results[i]!);
        });
      } catch (error) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    } catch {
      for (const write of writes) {
        try {
          const result = this.#run(() => this.#write(write, now));
          for (const done of write.done) done.resolve(result);
        } catch (error) {
          for (const done of write.done) done.reject(error);
        }
      }
    }
  }

  /** One queued write; for a delete, whether the key was there. */
  #write(write: PendingWrite, now: number): boolean {
    if (write.json !== undefined) {
      this.#set.run(write.namespace, write.key, write.json, now);
      return true;
    }
    return Number(this.#delete.run(write.namespace, write.key).changes) > 0 || write.existed;
  }

  // One statement each way, so SQLite's write lock makes it atomic across processes sharing the file.
  async compareAndSet(
    namespace: string,
    key: string,
    expected: StoreValue | undefined,
    next: StoreValue,
  ): Promise<boolean> {
    this.#flush();
    const json = JSON.stringify(next);
    const result = this.#run(() =>
      expected === undefined
        ? this.#insertNew.run(namespace, key, json, Date.now())
        : this.#replace.run(json, Date.now(), namespace, key, JSON.stringify(expected)),
    );
    return Number(result.changes) > 0;
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) {
      this.#flush();
      this.#db.close();
    }
  }

  #run<T>(operation: () => T): T {
    try {
      return operation();
    } catch (error) {
      throw this.#failed(error);
    }
  }

  #failed(error: unknown): HubosError {
    return HubosError.is(error)
      ? error
      : new HubosError('STORE_FAILED', `store ${this.path}: ${errorMessage(error)}`, { cause: error });
  }
}

interface PendingWrite {
  namespace: string;
  key: string;
  /** The value to set, or undefined for a delete. */
  json: string | undefined;
  /** Set earlier in the same turn: a delete then finds it even if it never reached the file. */
  existed: boolean;
  done: Deferred[];
}

interface Deferred {
  promise: Promise<boolean>;
  resolve(result: boolean): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: (result: boolean) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<boolean>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
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

/**
 * node:sqlite, loaded when a store opens rather than imported: an import would stop `hubos` from
 * loading at all on a Node.js without it, before the version check could say why.
 */
function sqlite(): typeof import('node:sqlite') {
  return process.getBuiltinModule('node:sqlite');
}
