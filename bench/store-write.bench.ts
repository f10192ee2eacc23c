/**
 * A session step's write cost: time per `store.set` of a run record of a few KB (what the run route
 * writes at start, at each step and at the end) and per `compareAndSet` of it (how an instance claims
 * a queued run), on PostgreSQL (PostgresStore, a pool of 10) against SQLite (a WAL file, the default
 * store), one at a time and 10 at once. Skips when PostgreSQL is unreachable.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresStore } from '../core/store/postgres.ts';
import { SqliteStore } from '../core/store/sqlite.ts';
import type { Store, StoreValue } from '../core/store/store.ts';
import {
  CAVEAT,
  DATABASE_URL,
  dropSchema,
  median,
  percentile,
  uniqueName,
  withServices,
} from './scale-services.ts';

/** A finished run's record: a few messages of a tool-using conversation, about 4 KB of JSON. */
function runRecord(id: string, steps: number): StoreValue {
  const words = (n: number, seed: number) =>
    Array.from({ length: n }, (_, i) => `word${(i * 7 + seed) % 97}`).join(' ');
  const messages: StoreValue[] = [{ role: 'user', content: words(40, 1) }];
  for (let i = 0; i < 4; i++) {
    messages.push({
      role: 'assistant',
      content: words(30, i),
      toolCalls: [{ id: `c${i}`, name: 'filesystem_read', input: { path: `src/file-${i}.ts` } }],
    });
    messages.push({ role: 'tool', toolCallId: `c${i}`, name: 'filesystem_read', content: words(60, i + 3) });
  }
  messages.push({ role: 'assistant', content: words(50, 9) });
  const now = new Date().toISOString();
  return {
    id,
    agent: 'bench',
    sessionId: 'session-1',
    owner: 'local',
    status: 'running',
    via: 'rest',
    instance: 'bench-host-1234-abcdef',
    steps,
    createdAt: now,
    startedAt: now,
    updatedAt: now,
    result: {
      runId: id,
      agent: 'bench',
      status: 'completed',
      stopReason: 'stop',
      text: words(50, 9),
      messages,
      usage: { inputTokens: 1234, outputTokens: 567 },
    },
  };
}

interface Timing {
  /** Wall time per operation (µs): the throughput's inverse, across all workers. */
  perOp: number;
  p50: number;
  p99: number;
}

/**
 * Runs `op` for about `ms` on `workers` concurrent loops (each on its own key) after a warm-up, and
 * times each call.
 */
async function measure(
  workers: number,
  ms: number,
  op: (worker: number, n: number) => Promise<void>,
): Promise<Timing> {
  for (let w = 0; w < workers; w++) for (let n = 0; n < 50; n++) await op(w, n);
  const latencies: number[] = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let n = 50; performance.now() - start < ms; n++) {
        const t = performance.now();
        await op(w, n);
        latencies.push((performance.now() - t) * 1000);
      }
    }),
  );
  const elapsed = (performance.now() - start) * 1000;
  return {
    perOp: elapsed / latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/** store.set of the record under `worker`'s key, a new step each time. */
function setOp(store: Store, prefix: string) {
  return (worker: number, n: number) =>
    store.set('bench:runs', `${prefix}-${worker}`, runRecord(`${prefix}-${worker}`, n));
}

/** compareAndSet from the value it wrote last to the next step's, as a claim or a lease renewal does. */
function casOp(store: Store, prefix: string) {
  const current = new Map<number, StoreValue>();
  return async (worker: number, n: number) => {
    const key = `${prefix}-${worker}`;
    const next = runRecord(key, n);
    const wrote = await store.compareAndSet('bench:runs', key, current.get(worker), next);
    if (!wrote) throw new Error(`compareAndSet lost on ${key}: nothing else writes it`);
    current.set(worker, next);
  };
}

async function bench(): Promise<void> {
  const MS = 1_000;
  const ROUNDS = 2;
  const dir = mkdtempSync(join(tmpdir(), 'hubos-store-bench-'));
  const schema = uniqueName('hubos_bench_store');
  const sqlite = new SqliteStore(join(dir, 'hubos.db'));
  const postgres = await PostgresStore.open(DATABASE_URL, { schema, poolSize: 10 });
  try {
    const size = JSON.stringify(runRecord('run-0', 0)).length;
    const cases = [
      { name: 'set, one at a time', workers: 1, op: setOp },
      { name: 'set, 10 at once', workers: 10, op: setOp },
      { name: 'compareAndSet, one at a time', workers: 1, op: casOp },
      { name: 'compareAndSet, 10 at once', workers: 10, op: casOp },
    ];
    const lines: string[] = [];
    for (const [index, c] of cases.entries()) {
      const results: { sqlite: Timing[]; postgres: Timing[] } = { sqlite: [], postgres: [] };
      // Alternating rounds, each store on keys of its own per round: the noise hits both alike.
      for (let round = 0; round < ROUNDS; round++) {
        results.sqlite.push(await measure(c.workers, MS, c.op(sqlite, `r${index}-${round}`)));
        results.postgres.push(await measure(c.workers, MS, c.op(postgres, `r${index}-${round}`)));
      }
      const pick = (timings: Timing[]) => ({
        perOp: median(timings.map((t) => t.perOp)),
        p50: median(timings.map((t) => t.p50)),
        p99: median(timings.map((t) => t.p99)),
      });
      const s = pick(results.sqlite);
      const p = pick(results.postgres);
      const us = (t: ReturnType<typeof pick>) =>
        `${Math.round(t.perOp)} µs/op (call p50 ${Math.round(t.p50)} µs, p99 ${Math.round(t.p99)} µs)`;
      lines.push(
        `  ${c.name}: PostgreSQL ${us(p)}; SQLite ${us(s)}; PostgreSQL/SQLite ${(p.perOp / s.perOp).toFixed(1)}x`,
      );
    }
    console.log(
      `Store writes of a ${(size / 1024).toFixed(1)} KB run record (medians of ${ROUNDS} alternating ${MS / 1000} s rounds; caveat: ${CAVEAT}):\n${lines.join('\n')}`,
    );
  } finally {
    await sqlite.close();
    await postgres.close();
    await dropSchema(schema).catch((error) => console.error(`could not drop schema ${schema}: ${error}`));
    rmSync(dir, { recursive: true, force: true });
  }
}

await withServices('Store writes', { postgres: true }, bench);
