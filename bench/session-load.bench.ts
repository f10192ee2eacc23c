/**
 * A session's load before each run: `Sessions.load` of a short session (10 messages) and a long one
 * (400), on PostgreSQL (PostgresStore) and SQLite, in one statement (`Store.entries`) against the
 * way a store without `entries` reads it (list the keys, then one get per message). Counts the
 * store's round trips per load (each call is one statement) and times the loads; the ratios are
 * within this run. Also a 400-message session read with `historyLimit: 20`, which the store limits.
 * Skips when PostgreSQL is unreachable.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sessions, type SessionsConfig } from '../core/agent/sessions.ts';
import type { Message } from '../core/index.ts';
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

/** The store's calls, counted: on these stores each is one statement, so one round trip on PostgreSQL. */
function counted(store: Store, withEntries: boolean): { store: Store; calls: () => number } {
  let calls = 0;
  const count = <T>(call: () => T): T => {
    calls++;
    return call();
  };
  const view: Store = {
    get: (namespace, key) => count(() => store.get(namespace, key)),
    set: (namespace, key, value) => store.set(namespace, key, value),
    delete: (namespace, key) => store.delete(namespace, key),
    list: (namespace, prefix) => count(() => store.list(namespace, prefix)),
    compareAndSet: (namespace, key, expected, next) => store.compareAndSet(namespace, key, expected, next),
    close: async () => {},
  };
  const entries = store.entries?.bind(store);
  if (withEntries && entries) view.entries = (...args) => count(() => entries(...args));
  return { store: view, calls: () => calls };
}

interface Result {
  /** Median wall time per load, ms. */
  ms: number;
  roundTrips: number;
  messages: number;
}

/** Loads `sessionId` for about `ms`, after a warm-up; median time and the round trips of one load. */
async function timeLoads(
  store: Store,
  withEntries: boolean,
  sessionId: string,
  config: SessionsConfig,
  ms: number,
) {
  const view = counted(store, withEntries);
  const sessions = new Sessions(view.store, config);
  for (let i = 0; i < 5; i++) await sessions.load('bench', sessionId);
  const before = view.calls();
  const messages = (await sessions.load('bench', sessionId)).length;
  const roundTrips = view.calls() - before;
  const times: number[] = [];
  for (const start = performance.now(); performance.now() - start < ms; ) {
    const t = performance.now();
    await sessions.load('bench', sessionId);
    times.push(performance.now() - t);
  }
  return { ms: median(times), roundTrips, messages } satisfies Result;
}

async function bench(): Promise<void> {
  const MS = 1_500;
  const dir = mkdtempSync(join(tmpdir(), 'hubos-session-bench-'));
  const schema = uniqueName('hubos_bench_sessions');
  const sqlite = new SqliteStore(join(dir, 'hubos.db'));
  const postgres = await PostgresStore.open(DATABASE_URL, { schema, poolSize: 10 });
  try {
    for (const store of [sqlite, postgres]) {
      const writer = new Sessions(store);
      for (let n = 0; n < 100; n++) await writer.append('bench', 'long', turn(n));
      for (let n = 0; n < 3; n++) await writer.append('bench', 'short', turn(n));
      await writer.append('bench', 'short', turn(3).slice(0, 2));
    }
    const lines: string[] = [];
    for (const [name, store] of [
      ['PostgreSQL', postgres],
      ['SQLite', sqlite],
    ] as const) {
      const short = await timeLoads(store, true, 'short', {}, MS);
      const long = await timeLoads(store, true, 'long', {}, MS);
      const limited = await timeLoads(store, true, 'long', { historyLimit: 20 }, MS);
      const shortEach = await timeLoads(store, false, 'short', {}, MS);
      const longEach = await timeLoads(store, false, 'long', {}, MS);
      const ms = (r: Result) => `${r.ms.toFixed(2)} ms`;
      const trips = (r: Result) => `${r.roundTrips} round trip${r.roundTrips === 1 ? '' : 's'}`;
      lines.push(
        `  ${name}, one statement: ${short.messages} messages ${ms(short)} (${trips(short)}), ${long.messages} messages ${ms(long)} (${trips(long)}): ${(long.ms / short.ms).toFixed(1)}x for ${(long.messages / short.messages).toFixed(1)}x the messages`,
        `  ${name}, list then get each: ${shortEach.messages} messages ${ms(shortEach)} (${trips(shortEach)}), ${longEach.messages} messages ${ms(longEach)} (${trips(longEach)}); one statement is ${(longEach.ms / long.ms).toFixed(1)}x faster on the long session`,
        `  ${name}, the long session with historyLimit 20: ${limited.messages} messages ${ms(limited)} (${trips(limited)}), ${(limited.ms / long.ms).toFixed(2)}x the whole session`,
      );
      for (const r of [short, long, limited])
        if (r.roundTrips !== 1) throw new Error(`${name}: a load took ${r.roundTrips} round trips, not 1`);
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
