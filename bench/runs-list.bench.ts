/**
 * The studio's Runs list on 100,000 runs (HUBOS_BENCH_LIST_RUNS), stored through the runs table
 * itself (its insert, as the engine writes them), in a SQLite file and in a PostgreSQL schema: p50
 * and p99 of a page of 50 for one owner and for an admin key (everyone's) — the first page, a page
 * 50,000 runs deep by cursor, an agent + status filter, and a text search `q` (one that finds few
 * runs, and one that finds none, which reads every run the caller may see). Target: p99 ≤ 50 ms.
 * Skips PostgreSQL, saying so, when it is unreachable.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRunTable } from '../core/runs/open-run-table.ts';
import type { RunRecord } from '../core/runs/run-record.ts';
import type { RunQuery, RunTable } from '../core/runs/run-table.ts';
import { PostgresStore } from '../core/store/postgres.ts';
import { SqliteStore } from '../core/store/sqlite.ts';
import { CAVEAT, DATABASE_URL, dropSchema, servicesUnreachable, uniqueName } from './scale-services.ts';

const RUNS = Number(process.env.HUBOS_BENCH_LIST_RUNS ?? 100_000);
const OWNERS = 100;
const AGENTS = ['helper', 'writer', 'coder', 'triage', 'support', 'search', 'review', 'plan', 'ops', 'docs'];
const TOPICS = ['billing', 'login', 'deploy', 'refund', 'latency', 'export', 'quota', 'backup', 'webhook'];
const SAMPLES = 200;
const TARGET_MS = 50;

/** A UUIDv7-shaped id made at `time`: what the engine's ids look like. */
function idAt(time: number, n: number): string {
  const hex = time.toString(16).padStart(12, '0');
  const tail = n.toString(16).padStart(15, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7${tail.slice(0, 3)}-8${tail.slice(3, 6)}-${tail.slice(6).padStart(12, '0')}`;
}

/** Run `i` of the fill: ten agents, a hundred owners, one run in 47 failed, one in 101 about an invoice. */
function runAt(i: number, start: number): RunRecord {
  const time = start + i * 10;
  const at = new Date(time).toISOString();
  const topic = i % 101 === 0 ? 'an Invoice' : TOPICS[i % TOPICS.length];
  return {
    id: idAt(time, i),
    agent: AGENTS[i % AGENTS.length]!,
    owner: `key:${i % OWNERS}`,
    status: i % 47 === 0 ? 'failed' : 'completed',
    via: 'rest',
    steps: 2,
    input: `Question ${i}: what happened with ${topic} for customer ${i % 997}?`,
    createdAt: at,
    startedAt: at,
    finishedAt: new Date(time + 5).toISOString(),
    updatedAt: new Date(time + 5).toISOString(),
  };
}

/** Inserts through the table, `parallel` at a time (SQLite commits each turn's inserts together). */
async function fill(table: RunTable, parallel: number): Promise<number> {
  const started = performance.now();
  const start = Date.now() - RUNS * 10;
  for (let i = 0; i < RUNS; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, RUNS - i) }, (_, k) => runAt(i + k, start));
    await Promise.all(batch.map((run) => table.insert(run)));
  }
  return performance.now() - started;
}

async function time(table: RunTable, query: RunQuery): Promise<{ p50: number; p99: number; rows: number }> {
  const took: number[] = [];
  let rows = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    rows = (await table.list(query)).length;
    took.push(performance.now() - start);
  }
  took.sort((a, b) => a - b);
  return { p50: took[Math.floor(SAMPLES / 2)]!, p99: took[Math.floor(SAMPLES * 0.99)]!, rows };
}

async function measure(name: string, table: RunTable): Promise<string[]> {
  // The id 50,000 runs back from the newest: a cursor as deep as the list goes in practice.
  const deep = (await table.idAtRank(Math.min(50_000, RUNS - 1)))!;
  const lines: string[] = [];
  // key:7's runs are those of `plan` (run i is agent i % 10's and owner i % 100's).
  for (const [who, owner, agent] of [
    ['owner', 'key:7', 'plan'],
    ['admin', undefined, 'coder'],
  ] as const) {
    const cases: [string, RunQuery][] = [
      ['first page', { owner, limit: 50 }],
      ['50,000 deep by cursor', { owner, limit: 50, before: deep }],
      ['agent + status', { owner, agent, status: 'failed', limit: 50 }],
      ['q (1 run in 101)', { owner, q: 'invoice', limit: 50 }],
      ['q (no run)', { owner, q: 'no such words', limit: 50 }],
    ];
    for (const [label, query] of cases) {
      const { p50, p99, rows } = await time(table, query);
      lines.push(
        `  ${name}, ${who}, ${label}: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (${rows} runs)${p99 > TARGET_MS ? `  (over the ${TARGET_MS} ms target)` : ''}`,
      );
    }
  }
  return lines;
}

const dir = mkdtempSync(join(tmpdir(), 'hubos-runs-list-'));
const lines: string[] = [];
try {
  const sqlite = new SqliteStore(join(dir, 'runs.db'));
  try {
    const table = await openRunTable(sqlite);
    const took = await fill(table, 1_000);
    lines.push(`  SQLite: ${RUNS.toLocaleString('en')} runs inserted in ${(took / 1000).toFixed(1)} s`);
    lines.push(...(await measure('SQLite', table)));
  } finally {
    await sqlite.close();
  }
  const unreachable = await servicesUnreachable({ postgres: true });
  if (unreachable) lines.push(`  PostgreSQL: ${unreachable}, skipped`);
  else {
    const schema = uniqueName('runslist');
    const store = await PostgresStore.open(DATABASE_URL, { schema });
    try {
      const table = await openRunTable(store);
      const took = await fill(table, 32);
      await store.query(`ANALYZE "${schema}".hubos_runs`, []);
      lines.push(`  PostgreSQL: ${RUNS.toLocaleString('en')} runs inserted in ${(took / 1000).toFixed(1)} s`);
      lines.push(...(await measure('PostgreSQL', table)));
    } finally {
      await store.close();
      await dropSchema(schema).catch(() => undefined);
    }
  }
  console.log(
    `Runs list (the studio's GET /api/runs pages, ${SAMPLES} each, target p99 ≤ ${TARGET_MS} ms; caveat: ${CAVEAT}):\n${lines.join('\n')}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
