/**
 * A session's load before each run, from the sessions tables: `Sessions.load` of a short session
 * (14 messages) and a long one (400), on PostgreSQL (PostgresStore) and SQLite, each one statement
 * (a range of the messages' primary key). Counts PostgreSQL's round trips per load and times the
 * loads; also the long session with `historyLimit: 20` (the database reads the last 20 only), and,
 * for comparison, the same sessions read the way the release before the tables did (key/value
 * entries, one `Store.entries` statement). Appends are timed too (one 4-message turn). The ratios
 * are within this run. Skips when PostgreSQL is unreachable.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sessions, type SessionsConfig } from '../core/agent/sessions.ts';
import type { Message } from '../core/index.ts';
import { openSessionTable } from '../core/runs/open-run-table.ts';
import { PostgresStore } from '../core/store/postgres.ts';
import { SqliteStore } from '../core/store/sqlite.ts';
import type { Store } from '../core/store/store.ts';
import { CAVEAT, DATABASE_URL, dropSchema, median, uniqueName, withServices } from './scale-services.ts';

/** A tool-using turn, about 1 KB of JSON over 4 messages. */
function turn(n: number): Message[] {
  const words = (count: number) =>
    Array.from({ length: count }, (_, i) => `word${(i * 7 + n) % 97}`).join(' ');
  return [
    { role: 'user', content: words(20) },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `c${n}`, name: 'filesystem_read', input: { path: `f${n}.ts` } }],
    },
    { role: 'tool', toolCallId: `c${n}`, name: 'filesystem_read', content: words(40) },
    { role: 'assistant', content: words(30) },
  ];
}

/** Median ms of `work`, run for about `ms` after a warm-up. */
async function timed(work: () => Promise<unknown>, ms: number): Promise<number> {
  for (let i = 0; i < 5; i++) await work();
  const times: number[] = [];
  for (const start = performance.now(); performance.now() - start < ms; ) {
    const t = performance.now();
    await work();
    times.push(performance.now() - t);
  }
  return median(times);
}

/** PostgreSQL's statements, counted: each `query` of the store is one round trip. */
function countQueries(store: PostgresStore): () => number {
  let calls = 0;
  const query = store.query.bind(store);
  store.query = ((sql: string, params: unknown[]) => {
    calls++;
    return query(sql, params);
  }) as typeof store.query;
  return () => calls;
}

/** A session as the release before the tables kept it: one key/value entry per message. */
async function writeOld(store: Store, session: string, messages: readonly Message[]): Promise<void> {
  for (const [n, message] of messages.entries())
    await store.set(
      'sessions:old',
      `${session}/${String(n).padStart(15, '0')}-000000000000-0000abcd`,
      message as never,
    );
}

async function bench(): Promise<void> {
  const MS = 1_500;
  const dir = mkdtempSync(join(tmpdir(), 'hubos-session-bench-'));
  const schema = uniqueName('hubos_bench_sessions');
  const sqlite = new SqliteStore(join(dir, 'hubos.db'));
  const postgres = await PostgresStore.open(DATABASE_URL, { schema, poolSize: 10 });
  const queries = countQueries(postgres);
  try {
    const long = Array.from({ length: 100 }, (_, n) => turn(n)).flat();
    const short = [...turn(0), ...turn(1), ...turn(2), ...turn(3).slice(0, 2)];
    for (const store of [sqlite, postgres]) {
      await openSessionTable(store);
      const writer = new Sessions(store);
      for (let n = 0; n < 100; n++) await writer.append('bench', 'long', turn(n));
      for (let n = 0; n < 3; n++) await writer.append('bench', 'short', turn(n));
      await writer.append('bench', 'short', turn(3).slice(0, 2));
      // Written after the tables' first open, so these stay key/value entries to compare with.
      await writeOld(store, 'long', long);
      await writeOld(store, 'short', short);
    }
    const lines: string[] = [];
    for (const [name, store] of [
      ['PostgreSQL', postgres],
      ['SQLite', sqlite],
    ] as const) {
      const load = async (session: string, config: SessionsConfig) => {
        const sessions = new Sessions(store, config);
        const before = queries();
        const messages = (await sessions.load('bench', session)).length;
        const trips = queries() - before;
        if (name === 'PostgreSQL' && trips !== 1) throw new Error(`a load took ${trips} round trips, not 1`);
        return { messages, ms: await timed(() => sessions.load('bench', session), MS) };
      };
      const old = async (session: string) =>
        timed(() => store.entries!('sessions:old', `${session}/`, { delimiter: '/' }), MS);
      const s = await load('short', {});
      const l = await load('long', {});
      const limited = await load('long', { historyLimit: 20 });
      const [oldShort, oldLong] = [await old('short'), await old('long')];
      const writer = new Sessions(store);
      let n = 0;
      const append = await timed(() => writer.append('bench', `appends-${name}`, turn(n++)), MS);
      const ms = (value: number) => `${value.toFixed(2)} ms`;
      lines.push(
        `  ${name}, table, one statement: ${s.messages} messages ${ms(s.ms)}, ${l.messages} messages ${ms(l.ms)}: ${(l.ms / s.ms).toFixed(1)}x for ${(l.messages / s.messages).toFixed(1)}x the messages`,
        `  ${name}, the long session with historyLimit 20: ${limited.messages} messages ${ms(limited.ms)}, ${(limited.ms / l.ms).toFixed(2)}x the whole session`,
        `  ${name}, as key/value entries before the table (Store.entries): ${ms(oldShort)} short, ${ms(oldLong)} long (table/entries ${(l.ms / oldLong).toFixed(2)}x on the long one)`,
        `  ${name}, append of a 4-message turn: ${ms(append)}`,
      );
    }
    console.log(
      `Session load (median of ${MS / 1000} s of loads each; caveat: ${CAVEAT}):\n${lines.join('\n')}`,
    );
  } finally {
    await sqlite.close();
    await postgres.close();
    await dropSchema(schema).catch((error) => console.error(`could not drop schema ${schema}: ${error}`));
    rmSync(dir, { recursive: true, force: true });
  }
}

await withServices('Session load', { postgres: true }, bench);
