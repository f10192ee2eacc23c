import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { errorMessage, HubosError } from '../errors.ts';
import { POSTGRES_MIGRATIONS } from './postgres-migrations.ts';
import {
  checkEntriesOptions,
  type EntriesOptions,
  type Store,
  type StoreEntry,
  type StoreValue,
  type StoreWrite,
} from './store.ts';

export interface PostgresStoreOptions {
  /** Connections this instance keeps open (default 10). */
  poolSize?: number;
  /** The schema HubOS's tables live in (default `public`); created when missing. */
  schema?: string;
  /** How long a statement waits for another session's lock before failing (PostgreSQL's lock_timeout). */
  lockTimeoutMs?: number;
}

// How long a statement keeps retrying while PostgreSQL is unreachable (a restart, a failover).
const RETRY_FOR_MS = 10_000;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
// Errors that say the connection, not the statement, failed: the statement can run again.
const CONNECTION_ERRORS = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting up
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * The shared Store: one PostgreSQL table several instances use at once. Values are JSON text;
 * every operation is a single statement, so PostgreSQL's row locks make compareAndSet atomic
 * across instances.
 */
export class PostgresStore implements Store {
  /** The URL without its password: safe for messages. */
  readonly url: string;
  readonly schema: string;
  readonly #pool: pg.Pool;
  readonly #table: string;
  readonly #names = new Map<string, string>();
  #ended: Promise<void> | undefined;

  private constructor(pool: pg.Pool, url: string, schema: string) {
    this.#pool = pool;
    this.url = url;
    this.schema = schema;
    this.#table = `${quoteIdent(schema)}.hubos_kv`;
  }

  /** Connects, applies pending migrations and fails with STORE_FAILED if the database is unusable. */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const safeUrl = redactUrl(url);
    const schema = options.schema ?? 'public';
    if (!SCHEMA_NAME.test(schema))
      throw new HubosError(
        'CONFIG_INVALID',
        `store.schema "${schema}" is not a valid schema name: use lowercase letters, digits and _ (at most 63)`,
      );
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      // Without it, a host that drops packets hangs startup and every query for ever.
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      ...(options.lockTimeoutMs !== undefined ? { lock_timeout: options.lockTimeoutMs } : {}),
    });
    // An idle connection PostgreSQL closed (a restart) is already out of the pool, and the next
    // query opens a new one. Without a listener it would crash the process; the error says nothing
    // a query will not say again, so it is dropped here.
    pool.on('error', () => {});
    try {
      await migrate(pool, schema, safeUrl, options.lockTimeoutMs);
    } catch (error) {
      await pool.end().catch(() => {});
      if (HubosError.is(error)) throw error;
      throw new HubosError(
        'STORE_FAILED',
        `cannot open the store ${safeUrl} (schema "${schema}"): ${describe(error)} (check PostgreSQL runs and accepts this user, and the URL in store.url or HUBOS_DATABASE_URL)`,
        { cause: error, details: { url: safeUrl, schema } },
      );
    }
    return new PostgresStore(pool, safeUrl, schema);
  }

  async get<T extends StoreValue = StoreValue>(namespace: string, key: string): Promise<T | undefined> {
    const result = await this.#query<{ value: string }>(
      `SELECT value FROM ${this.#table} WHERE namespace = $1 AND key = $2`,
      [namespace, key],
    );
    const row = result.rows[0];
    return row === undefined ? undefined : (JSON.parse(row.value) as T);
  }

  async set(namespace: string, key: string, value: StoreValue): Promise<void> {
    await this.#query(
      `INSERT INTO ${this.#table} (namespace, key, value) VALUES ($1, $2, $3)
       ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = now()`,
      [namespace, key, JSON.stringify(value)],
    );
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    const result = await this.#query(`DELETE FROM ${this.#table} WHERE namespace = $1 AND key = $2`, [
      namespace,
      key,
    ]);
    return (result.rowCount ?? 0) > 0;
  }

  async list(namespace: string, prefix = ''): Promise<string[]> {
    // starts_with, not LIKE: `%` and `_` in a prefix are plain characters. On the "C" key column
    // PostgreSQL turns it into a range on the primary key, and the order is SQLite's byte order.
    const result = await this.#query<{ key: string }>(
      `SELECT key FROM ${this.#table} WHERE namespace = $1 AND starts_with(key, $2) ORDER BY key COLLATE "C"`,
      [namespace, prefix],
    );
    return result.rows.map((row) => row.key);
  }

  // A walk of the primary key from one namespace to the next (an index probe each), not a read
  // of every key: there are few namespaces and many keys. Filtered here, whatever the collation.
  async namespaces(prefix = ''): Promise<string[]> {
    const result = await this.#query<{ namespace: string }>(
      `WITH RECURSIVE found(namespace) AS (
         SELECT min(namespace) FROM ${this.#table}
         UNION ALL
         SELECT (SELECT min(namespace) FROM ${this.#table} WHERE namespace > found.namespace)
         FROM found WHERE found.namespace IS NOT NULL)
       SELECT namespace FROM found WHERE namespace IS NOT NULL AND starts_with(namespace, $1)`,
      [prefix],
    );
    return result.rows.map((row) => row.namespace);
  }

  // One statement: the delimiter ($3, '' for none) and the limit ($4, NULL for none) are applied by
  // PostgreSQL, so a long prefix costs one round trip. `fromEnd` walks the key index backwards.
  async entries(namespace: string, prefix = '', options: EntriesOptions = {}): Promise<StoreEntry[]> {
    checkEntriesOptions(options);
    const fromEnd = options.fromEnd === true && options.limit !== undefined;
    const result = await this.#query<{ key: string; value: string }>(
      `SELECT key, value FROM ${this.#table}
       WHERE namespace = $1 AND starts_with(key, $2)
         AND ($3 = '' OR strpos(substr(key, length($2) + 1), $3) = 0)
       ORDER BY key COLLATE "C" ${fromEnd ? 'DESC' : 'ASC'} LIMIT $4`,
      [namespace, prefix, options.delimiter ?? '', options.limit ?? null],
    );
    const rows = fromEnd ? result.rows.reverse() : result.rows;
    return rows.map((row) => ({ key: row.key, value: JSON.parse(row.value) as StoreValue }));
  }

  // One statement each way: the row lock (or the primary key, for an insert) makes it atomic.
  // If the connection drops after PostgreSQL wrote but before it answered, the retry finds the
  // value already changed and answers false although this call wrote. A lease or claim then looks
  // lost and is taken again later, which is safe; the reverse (true without a write) cannot happen.
  async compareAndSet(
    namespace: string,
    key: string,
    expected: StoreValue | undefined,
    next: StoreValue,
  ): Promise<boolean> {
    const json = JSON.stringify(next);
    const result =
      expected === undefined
        ? await this.#query(
            `INSERT INTO ${this.#table} (namespace, key, value) VALUES ($1, $2, $3) ON CONFLICT (namespace, key) DO NOTHING`,
            [namespace, key, json],
          )
        : await this.#query(
            `UPDATE ${this.#table} SET value = $3, updated_at = now() WHERE namespace = $1 AND key = $2 AND value = $4`,
            [namespace, key, json, JSON.stringify(expected)],
          );
    return (result.rowCount ?? 0) > 0;
  }

  // One statement, so one round trip and all or none; run again after a dropped connection, it
  // leaves the same data. Only each key's last write counts, so the delete and the upsert never
  // touch one row (a statement's parts see one snapshot and could not order them).
  async batch(writes: readonly StoreWrite[]): Promise<void> {
    const last = new Map<string, StoreWrite>();
    for (const write of writes) {
      const id = `${write.namespace}\0${write.key}`;
      last.delete(id);
      last.set(id, write);
    }
    if (last.size === 0) return;
    const gone = [...last.values()].filter((write) => write.value === undefined);
    const kept = [...last.values()].filter((write) => write.value !== undefined);
    await this.#query(
      `WITH gone AS (
         DELETE FROM ${this.#table} AS kv USING unnest($1::text[], $2::text[]) AS d(namespace, key)
         WHERE kv.namespace = d.namespace AND kv.key = d.key COLLATE "C"
       )
       INSERT INTO ${this.#table} (namespace, key, value)
       SELECT * FROM unnest($3::text[], $4::text[], $5::text[])
       ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = now()`,
      [
        gone.map((write) => write.namespace),
        gone.map((write) => write.key),
        kept.map((write) => write.namespace),
        kept.map((write) => write.key),
        kept.map((write) => JSON.stringify(write.value)),
      ],
    );
  }

  /**
   * Runs one statement as every operation of the store does (retried while PostgreSQL is away),
   * for the tables of the run engine (core/runs). Statements must leave the same data run twice.
   * `prepared`: a statement of every run, sent as a named statement, so each connection parses and
   * plans it once instead of at every run (its text must not vary with the values).
   * @internal
   */
  query<R extends pg.QueryResultRow>(
    sql: string,
    params: unknown[],
    prepared = false,
  ): Promise<pg.QueryResult<R>> {
    return this.#query<R>(prepared ? { name: this.#nameOf(sql), text: sql, values: params } : sql, params);
  }

  /** A statement's name, the same for the same text (in every instance and connection). */
  #nameOf(sql: string): string {
    let name = this.#names.get(sql);
    if (name === undefined) {
      name = `hubos_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
      this.#names.set(sql, name);
    }
    return name;
  }

  async close(): Promise<void> {
    this.#ended ??= this.#pool.end();
    await this.#ended;
  }

  // Every statement here leaves the same data run twice (an upsert, a delete, a CAS), so one that
  // failed with the connection is run again until PostgreSQL is back: a restart loses no write.
  // Only the answer can differ: a delete or CAS that wrote before the drop then answers false.
  async #query<R extends pg.QueryResultRow>(
    sql: string | pg.QueryConfig,
    params: unknown[],
  ): Promise<pg.QueryResult<R>> {
    const deadline = Date.now() + RETRY_FOR_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#pool.query<R>(sql, params);
      } catch (error) {
        const delay = Math.min(100 * 2 ** attempt, 1_000);
        if (this.#ended || !isConnectionError(error) || Date.now() + delay > deadline)
          throw new HubosError('STORE_FAILED', `store ${this.url}: ${describe(error)}`, { cause: error });
        await sleep(delay);
      }
    }
  }
}

// In one transaction holding an advisory lock on the schema: instances starting together wait for
// the first, then find its migrations recorded. CREATE SCHEMA IF NOT EXISTS races without it.
async function migrate(pool: pg.Pool, schema: string, safeUrl: string, lockTimeoutMs = 0): Promise<void> {
  const client = await pool.connect();
  // A checked-out client has no pool listener: an error between statements must not crash.
  const ignore = () => {};
  client.on('error', ignore);
  const schemaId = quoteIdent(schema);
  try {
    await client.query('BEGIN');
    // Another instance's migrations are worth waiting for longer than a row lock.
    await client.query(`SET LOCAL lock_timeout = ${Math.max(lockTimeoutMs, 60_000)}`);
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLockKey(schema)]);
    // Checked first: CREATE SCHEMA needs the CREATE privilege even when the schema exists.
    const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (found.rowCount === 0) await client.query(`CREATE SCHEMA ${schemaId}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schemaId}.hubos_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const applied = await client.query<{ version: number }>(
      `SELECT version FROM ${schemaId}.hubos_migrations`,
    );
    const versions = new Set(applied.rows.map((row) => row.version));
    const newest = Math.max(0, ...versions);
    const known = Math.max(0, ...POSTGRES_MIGRATIONS.map((migration) => migration.version));
    if (newest > known)
      throw new HubosError(
        'STORE_FAILED',
        `cannot open the store ${safeUrl} (schema "${schema}"): it was migrated by a newer HubOS (migration ${newest}, this version knows up to ${known}); upgrade HubOS, or set store.schema to another schema`,
        { details: { url: safeUrl, schema, version: newest, known } },
      );
    await client.query(`SET LOCAL search_path TO ${schemaId}`);
    for (const migration of POSTGRES_MIGRATIONS) {
      if (versions.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query(`INSERT INTO ${schemaId}.hubos_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.removeListener('error', ignore);
    client.release();
  }
}

/** The same bigint for the same schema in every instance, as text (a JS number cannot hold it). */
function migrationLockKey(schema: string): string {
  return createHash('sha256').update(`hubos:migrations:${schema}`).digest().readBigInt64BE(0).toString();
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The URL as messages show it: without its password, which must never reach a log. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    for (const name of [...parsed.searchParams.keys()])
      if (/password/i.test(name)) parsed.searchParams.set(name, '***');
    return parsed.href;
  } catch {
    // pg takes forms URL does not (`postgres://user@/db?host=/socket`): drop the credentials whole.
    return url.replace(/\/\/.*@/, '//').replace(/([?&][^=&]*password=)[^&]*/gi, '$1***');
  }
}

function isConnectionError(error: unknown): boolean {
  if (error instanceof AggregateError) return error.errors.some(isConnectionError);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && CONNECTION_ERRORS.has(code)) return true;
  // pg's own errors for a connection that died carry no code.
  return /Connection terminated|not queryable|timeout exceeded when trying to connect/i.test(
    errorMessage(error),
  );
}

// Node's AggregateError (a host with several addresses, all refused) has an empty message.
function describe(error: unknown): string {
  if (error instanceof AggregateError && error.message === '')
    return error.errors.map(describe).join('; ') || 'connection failed';
  return errorMessage(error) || String((error as { code?: unknown } | null)?.code ?? 'unknown error');
}
