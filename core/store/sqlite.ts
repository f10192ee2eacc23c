import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { immediately } from '../db/sqlite-transaction.ts';
import { errorMessage, HubosError } from '../errors.ts';
import {
  checkEntriesOptions,
  type EntriesOptions,
  type Store,
  type StoreEntry,
  type StoreValue,
  type StoreWrite,
} from './store.ts';

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
  readonly #entries: StatementSync;
  readonly #entriesFromEnd: StatementSync;
  readonly #insertNew: StatementSync;
  readonly #replace: StatementSync;
  /**
   * Writes waiting for the next commit, in order: every write (a set, a delete, a batch) of one
   * turn of the event loop goes in one transaction (a commit costs more than the rows in it), each
   * resolved once committed. A delete resolves with whether the key was there.
   */
  #units: PendingUnit[] = [];
  /** The newest waiting value of each `namespace\0key` (undefined: deleted): what get() reads back. */
  #latest = new Map<string, string | undefined>();
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
        // The range lets SQLite use the primary key index; the substr check keeps it exact. Plain
        // `?` with the prefix passed four times: Node 22's and 24.0's node:sqlite cannot bind `?NNN`.
        'SELECT key FROM kv WHERE namespace = ? AND key >= ? AND key < ? || char(1114111) AND substr(key, 1, length(?)) = ? ORDER BY key',
      );
      // The same range, less the keys with the delimiter ('' for none) past the prefix; a limit of
      // -1 is none. Newest first for `fromEnd`: SQLite walks the index backwards.
      const entries = (order: 'ASC' | 'DESC') =>
        this.#db.prepare(
          `SELECT key, value FROM kv WHERE namespace = ? AND key >= ? AND key < ? || char(1114111) AND substr(key, 1, length(?)) = ? AND (? = '' OR instr(substr(key, length(?) + 1), ?) = 0) ORDER BY key ${order} LIMIT ?`,
        );
      this.#entries = entries('ASC');
      this.#entriesFromEnd = entries('DESC');
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

  /**
   * The open connection, for the tables of the run engine (core/runs): one file, one connection.
   * @internal
   */
  get database(): DatabaseSync {
    this.#flush();
    return this.#db;
  }

  async get<T extends StoreValue = StoreValue>(namespace: string, key: string): Promise<T | undefined> {
    // A write not yet committed is what this process reads back.
    const id = `${namespace}\0${key}`;
    if (this.#latest.has(id)) {
      const json = this.#latest.get(id);
      return json === undefined ? undefined : (JSON.parse(json) as T);
    }
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

  batch(writes: readonly StoreWrite[]): Promise<void> {
    let unit: PendingWrite[];
    try {
      unit = writes.map(({ namespace, key, value }) => ({
        namespace,
        key,
        json: value === undefined ? undefined : JSON.stringify(value),
      }));
    } catch (error) {
      return Promise.reject(error);
    }
    if (!this.#db.isOpen) return Promise.reject(this.#failed(new Error('database is not open')));
    if (unit.length === 0) return Promise.resolve();
    return this.#enqueue(unit) as Promise<unknown> as Promise<void>;
  }

  #queue(namespace: string, key: string, json: string | undefined): Promise<boolean> {
    return this.#enqueue([{ namespace, key, json }]);
  }

  #enqueue(writes: PendingWrite[]): Promise<boolean> {
    const done = deferred();
    this.#units.push({ writes, done });
    for (const { namespace, key, json } of writes) this.#latest.set(`${namespace}\0${key}`, json);
    this.#flushing ??= setImmediate(() => this.#flush());
    return done.promise;
  }

  async list(namespace: string, prefix = ''): Promise<string[]> {
    this.#flush();
    const rows = this.#run(() => this.#list.all(namespace, prefix, prefix, prefix, prefix)) as {
      key: string;
    }[];
    return rows.map((row) => row.key);
  }

  async namespaces(prefix = ''): Promise<string[]> {
    this.#flush();
    // A range of the primary key: only the keys of the namespaces asked for are read.
    const rows = this.#run(() =>
      this.#db
        .prepare(
          'SELECT DISTINCT namespace FROM kv WHERE namespace >= ? AND namespace < ? || char(1114111) AND substr(namespace, 1, length(?)) = ?',
        )
        .all(prefix, prefix, prefix, prefix),
    ) as { namespace: string }[];
    return rows.map((row) => row.namespace);
  }

  async entries(namespace: string, prefix = '', options: EntriesOptions = {}): Promise<StoreEntry[]> {
    checkEntriesOptions(options);
    this.#flush();
    const fromEnd = options.fromEnd === true && options.limit !== undefined;
    const statement = fromEnd ? this.#entriesFromEnd : this.#entries;
    const rows = this.#run(() =>
      statement.all(
        namespace,
        prefix,
        prefix,
        prefix,
        prefix,
        options.delimiter ?? '',
        prefix,
        options.delimiter ?? '',
        options.limit ?? -1,
      ),
    ) as { key: string; value: string }[];
    if (fromEnd) rows.reverse();
    return rows.map((row) => ({ key: row.key, value: JSON.parse(row.value) as StoreValue }));
  }

  /** Commits the waiting writes in one transaction; a unit that fails is retried alone, so it fails alone. */
  #flush(): void {
    if (this.#flushing) clearImmediate(this.#flushing);
    this.#flushing = undefined;
    if (this.#units.length === 0) return;
    const units = this.#units;
    this.#units = [];
    this.#latest = new Map();
    const now = Date.now();
    try {
      const results = immediately(this.#db, () => units.map((unit) => this.#apply(unit, now)));
      for (const [i, unit] of units.entries()) unit.done.resolve(results[i]!);
    } catch {
      for (const unit of units) {
        try {
          unit.done.resolve(this.#run(() => immediately(this.#db, () => this.#apply(unit, now))));
        } catch (error) {
          unit.done.reject(error);
        }
      }
    }
  }

  /** A unit's writes in order; for a lone delete, whether the key was there. */
  #apply(unit: PendingUnit, now: number): boolean {
    let result = true;
    for (const write of unit.writes) {
      if (write.json !== undefined) this.#set.run(write.namespace, write.key, write.json, now);
      else result = Number(this.#delete.run(write.namespace, write.key).changes) > 0;
    }
    return result;
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
}

/** Writes committed together: one set or delete, or a batch. */
interface PendingUnit {
  writes: PendingWrite[];
  done: Deferred;
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
