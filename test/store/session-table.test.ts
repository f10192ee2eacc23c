// The sessions tables on SQLite (a file, and the memory store's): a file the previous release
// wrote, appends from processes sharing one file, and the indexes retention and erasure read.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateSqlite } from '../../core/db/sqlite-migrations.ts';
import { MemoryStore, SqliteStore, type Store } from '../../core/index.ts';
import { openSessionTable } from '../../core/runs/open-run-table.ts';
import { RUNS_SQLITE_MIGRATIONS } from '../../core/runs/run-schema.ts';
import { searchTerms, selective } from '../../core/sessions/session-table.ts';
import { type OldEntry, sessionTableContract } from './session-table-contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'hubos-sessions-table-'));
const stores: SqliteStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
const sqlite = (path = join(dir, `s-${++files}.db`)) => {
  const store = new SqliteStore(path);
  stores.push(store);
  return store;
};

async function writeOld(store: Store, entries: readonly OldEntry[]): Promise<void> {
  for (const { namespace, key, value } of entries) await store.set(namespace, key, value as never);
}

sessionTableContract('SQLite', {
  fresh: async () => sqlite(),
  another: async (store) => sqlite((store as SqliteStore).path),
  async previous(entries) {
    // The previous release: the runs tables' four migrations, sessions as key/value entries.
    const path = join(dir, `previous-${++files}.db`);
    const before = new SqliteStore(path);
    migrateSqlite(before.database, RUNS_SQLITE_MIGRATIONS.slice(0, 4), path);
    await writeOld(before, entries);
    await before.close();
    return [sqlite(path), sqlite(path)];
  },
});

sessionTableContract('memory', {
  fresh: async () => new MemoryStore(),
  // One process: the memory store's tables are shared by whatever uses that store.
  another: async (store) => store,
  async previous(entries) {
    const store = new MemoryStore();
    await writeOld(store, entries);
    return [store, store];
  },
});

describe('SQLite sessions table', () => {
  it('keeps every message of 4 processes appending to one session of one file at once, each append whole', async () => {
    const path = join(dir, 'shared.db');
    const table = await openSessionTable(sqlite(path));
    const script = join(dir, 'append.ts');
    writeFileSync(
      script,
      `import { SqliteStore } from ${JSON.stringify(join(process.cwd(), 'core/store/sqlite.ts'))};
import { openSessionTable } from ${JSON.stringify(join(process.cwd(), 'core/runs/open-run-table.ts'))};
const store = new SqliteStore(${JSON.stringify(path)}, { busyTimeoutMs: 20000 });
const table = await openSessionTable(store);
const me = process.argv[2];
for (let i = 0; i < 50; i++)
  await table.append('helper', 'shared', 'local', [0, 1].map((n) => ({ role: 'user', content: me + '-' + i + '-' + n })));
await store.close();
`,
    );
    await Promise.all(
      ['p1', 'p2', 'p3', 'p4'].map(
        (name) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, [script, name], {
              stdio: ['ignore', 'inherit', 'inherit'],
            });
            child.on('error', reject);
            child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
          }),
      ),
    );
    const loaded = (await table.load('helper', 'shared')).map((message) => message.content as string);
    expect(loaded).toHaveLength(400);
    expect(new Set(loaded).size).toBe(400);
    for (let i = 0; i < loaded.length; i += 2) expect(loaded[i + 1]).toBe(`${loaded[i]!.slice(0, -2)}-1`);
    for (const me of ['p1', 'p2', 'p3', 'p4'])
      expect(loaded.filter((text) => text.startsWith(`${me}-`) && text.endsWith('-0'))).toEqual(
        Array.from({ length: 50 }, (_, i) => `${me}-${i}-0`),
      );
  }, 60_000);

  it('loads by the primary key, and finds idle sessions and an owner’s by their own indexes', async () => {
    const store = sqlite();
    await openSessionTable(store);
    const plan = (sql: string) =>
      (store.database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[])
        .map((row) => row.detail)
        .join('; ');
    expect(
      plan(
        "SELECT message FROM (SELECT seq, message FROM hubos_session_messages WHERE agent = 'a' AND session_id = 's' ORDER BY seq DESC LIMIT 20) ORDER BY seq",
      ),
    ).toMatch(/USING INDEX sqlite_autoindex_hubos_session_messages_1/);
    expect(
      plan(
        'SELECT agent, session_id FROM hubos_sessions WHERE last_active < 5 ORDER BY last_active LIMIT 50',
      ),
    ).toMatch(/USING (COVERING )?INDEX hubos_sessions_last_active/);
    expect(plan("SELECT agent, session_id FROM hubos_sessions WHERE owner = 'alice' LIMIT 50")).toMatch(
      /USING (COVERING )?INDEX hubos_sessions_owner/,
    );
  });

  it('searches by the rare words of a query: a word in more than 1,000 messages is left out unless all are that common', async () => {
    const table = await openSessionTable(sqlite());
    const said = (content: string) => ({ role: 'user' as const, content });
    // 1,500 messages that say "my code", the newest first when candidates are capped.
    await table.append(
      'helper',
      'chatter',
      'alice',
      Array.from({ length: 1_500 }, (_, i) => said(`my code ${i}`)),
    );
    await table.append('helper', 'fact', 'alice', [said('my locker code is 4512')]);
    const search = (terms: string[]) =>
      table.search({ owner: 'alice', userId: '', agent: 'helper', terms, limit: 3 });
    expect(selective(['my', 'code', 'locker'], (term) => (term === 'locker' ? 1 : 1_501))).toEqual([
      'locker',
    ]);
    expect(selective(['my', 'code'], (term) => (term === 'my' ? 1_600 : 1_501))).toEqual(['code']);
    // Ranked among the common words' matches, the fact would be one of 1,501; by its rare word, it comes first.
    expect((await search(searchTerms('what is my locker code?')))[0]!.text).toBe('my locker code is 4512');
    // Only common words: still answered, from the newest matches.
    expect(await search(['my', 'code'])).toHaveLength(3);
  });
});
