import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../core/index.ts';
import { openStore } from '../../core/store/open-store.ts';
import { bootKernel } from '../../testing/index.ts';
import { expectHubosError, expectHubosRejection } from '../core/helpers.ts';
import { storeContract } from './contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'hubos-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = (name = 'store') => join(dir, `${name}-${++files}.db`);

storeContract('SqliteStore (file)', () => new SqliteStore(freshPath()));
storeContract('SqliteStore (:memory:)', () => new SqliteStore(':memory:'));

describe('SqliteStore: the writes of one turn in one commit', () => {
  it('applies single writes and batches of one turn in the order they were made', async () => {
    const store = new SqliteStore(freshPath());
    const set = store.set('active', 'r', { status: 'running' });
    const batch = store.batch([
      { namespace: 'ended', key: 'r', value: { status: 'failed' } },
      { namespace: 'active', key: 'r', value: undefined },
    ]);
    // Read back before the commit: what the writes so far say.
    expect(await store.get('active', 'r')).toBeUndefined();
    expect(await store.get('ended', 'r')).toEqual({ status: 'failed' });
    const deleted = store.delete('ended', 'r');
    await Promise.all([set, batch]);
    expect(await deleted).toBe(true);
    expect(await store.list('active')).toEqual([]);
    expect(await store.list('ended')).toEqual([]);
    await store.close();
  });

  it('fails a batch SQLite refuses whole and alone, committing the rest of the turn', async () => {
    const path = freshPath();
    const store = new SqliteStore(path);
    await store.set('ns', 'warm', 0);
    const other = new DatabaseSync(path);
    other.exec(
      "CREATE TRIGGER poison BEFORE INSERT ON kv WHEN NEW.key = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned row'); END",
    );
    other.close();
    const before = store.set('ns', 'a', 1);
    const batch = store.batch([
      { namespace: 'ns', key: 'b', value: 2 },
      { namespace: 'ns', key: 'warm', value: undefined },
      { namespace: 'ns', key: 'poison', value: 3 },
    ]);
    const after = store.set('ns', 'c', 4);
    expect((await expectHubosRejection(batch, 'STORE_FAILED')).message).toMatch(/poisoned row/);
    await Promise.all([before, after]);
    expect(await store.list('ns')).toEqual(['a', 'c', 'warm']);
    await store.close();
  });
});

describe('SqliteStore: durability and sharing', () => {
  it('keeps data across close and reopen', async () => {
    const path = freshPath();
    const first = new SqliteStore(path);
    await first.set('ns', 'kept', { n: 1 });
    await first.set('ns', 'dropped', 2);
    await first.delete('ns', 'dropped');
    await first.close();
    const second = new SqliteStore(path);
    expect(await second.get('ns', 'kept')).toEqual({ n: 1 });
    expect(await second.list('ns')).toEqual(['kept']);
    await second.close();
  });

  it("lets two stores on one file see each other's writes", async () => {
    const path = freshPath();
    const a = new SqliteStore(path);
    const b = new SqliteStore(path);
    await a.set('ns', 'from-a', 'a');
    expect(await b.get('ns', 'from-a')).toBe('a');
    await b.set('ns', 'from-b', 'b');
    await b.set('ns', 'from-a', 'changed by b');
    expect(await a.list('ns')).toEqual(['from-a', 'from-b']);
    expect(await a.get('ns', 'from-a')).toBe('changed by b');
    expect(await b.delete('ns', 'from-b')).toBe(true);
    expect(await a.get('ns', 'from-b')).toBeUndefined();
    await Promise.all([a.close(), b.close()]);
  });

  it('uses WAL journaling', async () => {
    const path = freshPath();
    const store = new SqliteStore(path);
    await store.set('ns', 'k', 1);
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    } finally {
      db.close();
    }
    expect(existsSync(`${path}-wal`)).toBe(true);
    await store.close();
  });

  it('creates missing folders on the way to the file', async () => {
    const path = join(dir, 'deep', 'er', 'store.db');
    const store = new SqliteStore(path);
    await store.set('ns', 'k', 1);
    await store.close();
    expect(existsSync(path)).toBe(true);
  });

  it('fails operations on a closed store with STORE_FAILED', async () => {
    const path = freshPath();
    const store = new SqliteStore(path);
    await store.close();
    const error = await expectHubosRejection(store.get('ns', 'k'), 'STORE_FAILED');
    expect(error.message).toContain(path);
  });
});

describe('SqliteStore: files it cannot use', () => {
  it('refuses a file that is not a SQLite database, naming the path', () => {
    const path = freshPath('corrupt');
    writeFileSync(path, Buffer.from('this is not a database; just some garbage bytes\n'.repeat(100)));
    const error = expectHubosError(() => new SqliteStore(path), 'STORE_FAILED');
    expect(error.message).toContain(`cannot open the store at ${path}`);
    expect(error.message).toContain('file is not a database');
    expect(error.details.path).toBe(path);
  });

  it("refuses a database whose kv table is someone else's", () => {
    const path = freshPath('foreign');
    const db = new DatabaseSync(path);
    db.exec('CREATE TABLE kv (a TEXT, b TEXT)');
    db.close();
    const error = expectHubosError(() => new SqliteStore(path), 'STORE_FAILED');
    expect(error.message).toContain(path);
  });

  it('refuses a path under a regular file', () => {
    const file = freshPath('plain-file');
    writeFileSync(file, 'x');
    const path = join(file, 'sub', 'store.db');
    const error = expectHubosError(() => new SqliteStore(path), 'STORE_FAILED');
    expect(error.message).toContain(path);
  });

  it('refuses an unwritable location such as /proc promptly', () => {
    const started = performance.now();
    const error = expectHubosError(() => new SqliteStore('/proc/hubos-test/store.db'), 'STORE_FAILED');
    expect(error.message).toContain('/proc/hubos-test/store.db');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('fails kernel boot at startup with STORE_FAILED', async () => {
    const path = freshPath('corrupt-boot');
    writeFileSync(path, 'garbage');
    const error = await expectHubosRejection(
      bootKernel({ store: undefined, config: { store: { driver: 'sqlite', path } } }),
      'STORE_FAILED',
    );
    expect(error.message).toContain(path);
    await expectHubosRejection(
      bootKernel({ store: undefined, config: { store: { path: '/proc/hubos-test/x.db' } } }),
      'STORE_FAILED',
    );
  });
});

describe('openStore', () => {
  it('opens SQLite by default at .hubos/hubos.db under the base folder', async () => {
    const base = join(dir, 'app');
    const store = await openStore({}, base, {});
    expect(store).toBeInstanceOf(SqliteStore);
    expect((store as SqliteStore).path).toBe(join(base, '.hubos', 'hubos.db'));
    await store.close();
  });

  it('resolves a relative path from the base folder and keeps :memory:', async () => {
    const store = (await openStore({ path: 'data/x.db' }, dir, {})) as SqliteStore;
    expect(store.path).toBe(join(dir, 'data', 'x.db'));
    await store.close();
    const memory = (await openStore({ path: ':memory:' }, dir, {})) as SqliteStore;
    expect(memory.path).toBe(':memory:');
    await memory.close();
  });

  it('gives a booted kernel its configured SQLite store', async () => {
    const path = freshPath('kernel');
    const kernel = await bootKernel({ store: undefined, config: { store: { path } } });
    await kernel.store.set('plugin:test', 'k', 'v');
    await kernel.close();
    const reopened = new SqliteStore(path);
    expect(await reopened.get('plugin:test', 'k')).toBe('v');
    await reopened.close();
  });
});

describe('SqliteStore: entries', () => {
  it('reads back the writes of this turn, not yet committed', async () => {
    const store = new SqliteStore(':memory:');
    try {
      const written = [
        store.set('ns', 's/1', 'one'),
        store.set('ns', 's/2', 'two'),
        store.delete('ns', 's/0'),
      ];
      expect(await store.entries('ns', 's/')).toEqual([
        { key: 's/1', value: 'one' },
        { key: 's/2', value: 'two' },
      ]);
      await Promise.all(written);
    } finally {
      await store.close();
    }
  });
});
