/**
 * Memory's costs. Recall: `Sessions.search` over 100,000 stored messages (one user holding half
 * of them in 500 sessions, nineteen others the rest), on SQLite and PostgreSQL, with queries of
 * three words drawn from a Zipf-like vocabulary (common words match thousands of messages): p50
 * and p99 of 400 searches; the target is p99 ≤ 20 ms on both. Turn cost: PostgreSQL statements a
 * run makes before its model call with memory on and off (the target is at most one more: the
 * working memory read). Skips when PostgreSQL is unreachable.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sessions } from '../core/agent/sessions.ts';
import type { Message } from '../core/index.ts';
import { openSessionTable } from '../core/runs/open-run-table.ts';
import type { StoredSession } from '../core/sessions/session-table.ts';
import { PostgresStore } from '../core/store/postgres.ts';
import { SqliteStore } from '../core/store/sqlite.ts';
import type { Store } from '../core/store/store.ts';
import memory from '../plugins/memory/index.ts';
import { bootKernel, ScriptedModel } from '../testing/index.ts';
import {
  CAVEAT,
  DATABASE_URL,
  dropSchema,
  median,
  percentile,
  uniqueName,
  withServices,
} from './scale-services.ts';

const MESSAGES = 100_000;
const PER_SESSION = 100;
const VOCABULARY = Array.from({ length: 5_000 }, (_, i) => `w${i.toString(36)}`);

/** A deterministic generator, so both stores hold the same text. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** A word, the first ones far more often (about Zipf's law). */
const word = (next: () => number) => VOCABULARY[Math.floor(VOCABULARY.length * next() ** 3)]!;

function sessions(): StoredSession[] {
  const next = random(42);
  const made: StoredSession[] = [];
  for (let s = 0; s < MESSAGES / PER_SESSION; s++) {
    // The first half are one user's; the rest spread over nineteen owners.
    const owner = s < 500 ? 'key:heavy' : `key:o${s % 19}`;
    const messages: Message[] = Array.from({ length: PER_SESSION }, (_, m) => ({
      role: m % 2 === 0 ? 'user' : 'assistant',
      content: Array.from({ length: 20 }, () => word(next)).join(' '),
    }));
    made.push({ agent: 'helper', sessionId: `s${s}`, owner, createdAt: s, lastActive: s, messages });
  }
  return made;
}

async function fill(store: Store, all: StoredSession[]): Promise<void> {
  const table = await openSessionTable(store);
  for (let start = 0; start < all.length; start += 50) await table.insertMany(all.slice(start, start + 50));
}

async function searches(store: Store): Promise<{ p50: number; p99: number; found: number }> {
  const sessions = new Sessions(store);
  const next = random(7);
  const query = () => `${word(next)} ${word(next)} ${word(next)}`;
  const scope = { owner: 'key:heavy', userId: '', agent: 'helper', limit: 8 };
  for (let i = 0; i < 20; i++) await sessions.search({ ...scope, query: query() });
  const times: number[] = [];
  let found = 0;
  for (let i = 0; i < 400; i++) {
    const text = query();
    const t = performance.now();
    found += (await sessions.search({ ...scope, query: text })).length;
    times.push(performance.now() - t);
  }
  return { p50: median(times), p99: percentile(times, 99), found: found / 400 };
}

/** PostgreSQL statements a run makes before its model call, with memory on or off. */
async function beforeModel(schema: string, withMemory: boolean): Promise<number> {
  // A store of its own: the kernel closes it.
  const store = await PostgresStore.open(DATABASE_URL, { schema });
  let statements = 0;
  const query = store.query.bind(store);
  store.query = ((sql: string, params: unknown[], prepared?: boolean) => {
    statements++;
    return query(sql, params, prepared);
  }) as typeof store.query;
  const counted: number[] = [];
  const model = new ScriptedModel(
    Array.from({ length: 3 }, () => () => {
      counted.push(statements);
      return 'ok';
    }),
  );
  const kernel = await bootKernel({
    store,
    plugins: withMemory ? [memory()] : [],
    config: { agents: { helper: { model, ...(withMemory ? { memory: {} } : {}) } } },
  });
  try {
    const agent = kernel.getAgent('helper')!;
    // The second and third runs: tables open, statements prepared.
    const trips: number[] = [];
    for (let n = 0; n < 3; n++) {
      const before = statements;
      await agent.run('hello', {
        principal: 'key:turns',
        userId: 'u',
        sessionId: `key:turns~t${withMemory}`,
      });
      trips.push(counted[n]! - before);
    }
    return trips.at(-1)!;
  } finally {
    await kernel.close();
  }
}

async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hubos-memory-bench-'));
  const schema = uniqueName('hubos_bench_memory');
  const sqlite = new SqliteStore(join(dir, 'hubos.db'));
  const postgres = await PostgresStore.open(DATABASE_URL, { schema, poolSize: 10 });
  try {
    const all = sessions();
    const lines: string[] = [];
    for (const [name, store] of [
      ['SQLite', sqlite],
      ['PostgreSQL', postgres],
    ] as const) {
      const t = performance.now();
      await fill(store, all);
      // What autovacuum would do by itself soon after: the statistics that tell common words.
      if (store === postgres) {
        await postgres.query(`ANALYZE "${schema}".hubos_session_messages`, []);
        await postgres.query(`ANALYZE "${schema}".hubos_sessions`, []);
      }
      console.log(
        `  (${name}: ${MESSAGES} messages written in ${((performance.now() - t) / 1000).toFixed(1)} s)`,
      );
      const { p50, p99, found } = await searches(store);
      lines.push(
        `  ${name}, recall over ${MESSAGES.toLocaleString('en')} messages: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target ≤ 20 ms; ${found.toFixed(1)} hits a search)`,
      );
    }
    console.log(lines.join('\n'));
    const off = await beforeModel(schema, false);
    const on = await beforeModel(schema, true);
    lines.push(
      `  PostgreSQL statements before the model call: ${off} without memory, ${on} with it (target: at most one more)`,
    );
    console.log(`Memory (caveat: ${CAVEAT}):\n${lines.join('\n')}`);
    if (on > off + 1)
      throw new Error(`memory added ${on - off} statements before the model call, not at most 1`);
  } finally {
    await sqlite.close();
    await postgres.close();
    await dropSchema(schema).catch((error) => console.error(`could not drop schema ${schema}: ${error}`));
    rmSync(dir, { recursive: true, force: true });
  }
}

await withServices('Memory', { postgres: true }, bench);
