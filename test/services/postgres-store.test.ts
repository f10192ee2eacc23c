import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../core/store/open-store.ts';
import { PostgresStore } from '../../core/store/postgres.ts';
import { POSTGRES_MIGRATIONS } from '../../core/store/postgres-migrations.ts';
import { SqliteStore } from '../../core/store/sqlite.ts';
import { expectHubosRejection } from '../core/helpers.ts';
import { storeContract } from '../store/contract.ts';
import { DATABASE_URL, uniqueName } from './env.ts';

// Every schema this file makes starts with `base` and is dropped at the end.
const base = uniqueName('pgstore');
const schemas: string[] = [];
let schemaCount = 0;
function freshSchema(): string {
  const schema = `${base}_${++schemaCount}`;
  schemas.push(schema);
  return schema;
}

function byCodePoint(a: string, b: string): number {
  const [x, y] = [Array.from(a), Array.from(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const diff = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
  return x.length - y.length;
}

const admin = new pg.Client({ connectionString: DATABASE_URL });
const dir = mkdtempSync(join(tmpdir(), 'hubos-pgstore-'));

beforeAll(async () => {
  await admin.connect();
});

afterAll(async () => {
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
});

storeContract('PostgresStore', () => PostgresStore.open(DATABASE_URL, { schema: freshSchema() }));

describe('PostgresStore', () => {
  let store: PostgresStore;
  let schema: string;

  beforeAll(async () => {
    schema = freshSchema();
    store = await PostgresStore.open(DATABASE_URL, { schema });
  });
  afterAll(() => store.close());

  it('lists keys in the same byte order as the SQLite store, prefixes taken literally', async () => {
    const keys = [
      'b',
      'a',
      'B',
      'a_b',
      'a%b',
      'a%',
      'axb',
      'ab',
      'a b',
      'é',
      'e',
      'Z',
      '~',
      '日本',
      '🎉',
      '\uffff',
      '',
    ];
    const sqlite = new SqliteStore(':memory:');
    try {
      for (const key of keys) {
        await store.set('order', key, key);
        await sqlite.set('order', key, key);
      }
      for (const prefix of ['', 'a', 'a%', 'a_', 'A', 'é', '日', '\uffff', 'zzz']) {
        const listed = await store.list('order', prefix);
        expect(listed, `prefix ${JSON.stringify(prefix)}`).toEqual(await sqlite.list('order', prefix));
      }
    } finally {
      await sqlite.close();
    }
    expect(await store.list('order', 'a%')).toEqual(['a%', 'a%b']);
    expect(await store.list('order', 'a_')).toEqual(['a_b']);
    // Code point order (UTF-8 byte order), not the database's locale and not JS's UTF-16 sort.
    expect(await store.list('order')).toEqual([...keys].sort(byCodePoint));
    expect((await store.list('order')).slice(-3)).toEqual(['日本', '\uffff', '🎉']);
  });

  it('keeps values as their JSON text: unicode, \\u0000, key order', async () => {
    const value = { z: 1, a: 'nul\u0000here', é: '日本語 🎉', nested: { b: [null, true, 1.5], a: '' } };
    await store.set('values', 'k', value);
    const read = await store.get('values', 'k');
    expect(read).toEqual(value);
    expect(JSON.stringify(read)).toBe(JSON.stringify(value));
    await store.set('values', 'nul', '\u0000');
    expect(await store.get('values', 'nul')).toBe('\u0000');
    await store.set('values', 'null', null);
    expect(await store.get('values', 'null')).toBeNull();
    const { rows } = await admin.query(
      `SELECT value FROM "${schema}".hubos_kv WHERE namespace = 'values' AND key = 'k'`,
    );
    expect(rows[0].value).toBe(JSON.stringify(value));
  });

  it('compares JSON text: a value with its keys in another order does not match', async () => {
    await store.set('cas', 'order', { a: 1, b: 2 });
    expect(await store.compareAndSet('cas', 'order', { b: 2, a: 1 }, 'next')).toBe(false);
    expect(await store.compareAndSet('cas', 'order', { a: 1, b: 2 }, 'next')).toBe(true);
    expect(await store.get('cas', 'order')).toBe('next');
  });

  it('lets exactly one of 20 concurrent inserts of an absent key win', async () => {
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.compareAndSet('cas', 'absent', undefined, { holder: i })),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    const winner = claims.indexOf(true);
    expect(await store.get('cas', 'absent')).toEqual({ holder: winner });
  });

  it('lets exactly one of 20 concurrent swaps of one value win', async () => {
    await store.set('cas', 'lease', { holder: 'none', n: 0 });
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.compareAndSet('cas', 'lease', { holder: 'none', n: 0 }, { holder: `i${i}`, n: 1 }),
      ),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.get('cas', 'lease')).toEqual({ holder: `i${claims.indexOf(true)}`, n: 1 });
  });

  it('turns a failing statement into STORE_FAILED naming the store, quickly (no retry)', async () => {
    const started = Date.now();
    // PostgreSQL text cannot hold NUL: the key is refused by the server.
    const error = await expectHubosRejection(store.set('ns', 'bad\u0000key', 1), 'STORE_FAILED');
    expect(error.message).toMatch(/^store postgres:\/\/postgres@127\.0\.0\.1/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('sees what another instance on the same schema wrote', async () => {
    const other = await PostgresStore.open(DATABASE_URL, { schema, poolSize: 2 });
    try {
      await other.set('shared', 'k', { from: 'other' });
      expect(await store.get('shared', 'k')).toEqual({ from: 'other' });
      expect(await store.delete('shared', 'k')).toBe(true);
      expect(await other.get('shared', 'k')).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('fails with STORE_FAILED once closed', async () => {
    const closing = await PostgresStore.open(DATABASE_URL, { schema, poolSize: 1 });
    await closing.close();
    await expectHubosRejection(closing.get('ns', 'k'), 'STORE_FAILED');
  });
});

describe('PostgresStore: migrations', () => {
  it('applies each migration once when several instances open a fresh schema together', async () => {
    const schema = freshSchema();
    const stores = await Promise.all(
      Array.from({ length: 5 }, () => PostgresStore.open(DATABASE_URL, { schema, poolSize: 2 })),
    );
    try {
      const { rows } = await admin.query(
        `SELECT version, name FROM "${schema}".hubos_migrations ORDER BY version`,
      );
      expect(rows).toEqual(POSTGRES_MIGRATIONS.map(({ version, name }) => ({ version, name })));
      await Promise.all(stores.map((store, i) => store.set('ns', `k${i}`, i)));
      for (const store of stores) expect(await store.list('ns')).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    // Opening again finds everything applied and keeps the data.
    const again = await PostgresStore.open(DATABASE_URL, { schema });
    try {
      expect(await again.get('ns', 'k3')).toBe(3);
      const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".hubos_migrations`);
      expect(rows[0].n).toBe(POSTGRES_MIGRATIONS.length);
    } finally {
      await again.close();
    }
  });

  it('refuses a schema migrated by a newer HubOS', async () => {
    const schema = freshSchema();
    await (await PostgresStore.open(DATABASE_URL, { schema })).close();
    await admin.query(
      `INSERT INTO "${schema}".hubos_migrations (version, name) VALUES (9999, 'from the future')`,
    );
    const error = await expectHubosRejection(PostgresStore.open(DATABASE_URL, { schema }), 'STORE_FAILED');
    expect(error.message).toContain('newer HubOS');
    expect(error.message).toContain('9999');
    expect(error.message).toContain(schema);
  });
});

describe('PostgresStore: unreachable or misconfigured', () => {
  it('fails with STORE_FAILED naming the host, never the password', async () => {
    const url = 'postgres://hubos:s3cr3t-pa55@127.0.0.1:1/hubos';
    const error = await expectHubosRejection(PostgresStore.open(url), 'STORE_FAILED');
    expect(error.message).toContain('postgres://hubos@127.0.0.1:1/hubos');
    expect(error.message).toMatch(/HUBOS_DATABASE_URL/);
    expect(error.message).not.toContain('s3cr3t-pa55');
    expect(inspect(error, { depth: 10 })).not.toContain('s3cr3t-pa55');
    expect(JSON.stringify(error.details)).not.toContain('s3cr3t-pa55');
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expectHubosRejection(PostgresStore.open(DATABASE_URL, { schema: 'Bad"Name' }), 'CONFIG_INVALID');
  });
});

describe('openStore with PostgreSQL', () => {
  it('opens a PostgresStore from store.url and from HUBOS_DATABASE_URL', async () => {
    const schema = freshSchema();
    const fromConfig = await openStore({ driver: 'postgres', url: DATABASE_URL, schema }, dir, {});
    const fromEnv = await openStore({ schema }, dir, { HUBOS_DATABASE_URL: DATABASE_URL });
    try {
      expect(fromConfig).toBeInstanceOf(PostgresStore);
      expect(fromEnv).toBeInstanceOf(PostgresStore);
      expect((fromEnv as PostgresStore).schema).toBe(schema);
      await fromConfig.set('ns', 'k', 'from config');
      expect(await fromEnv.get('ns', 'k')).toBe('from config');
    } finally {
      await fromConfig.close();
      await fromEnv.close();
    }
  });

  it('fails with CONFIG_INVALID when postgres is asked for without a URL', async () => {
    await expectHubosRejection(openStore({ driver: 'postgres' }, dir, {}), 'CONFIG_INVALID');
  });
});
