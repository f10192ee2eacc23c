/**
 * `GET /api/usage`'s query (RunTable.usage) with many runs stored: HUBOS_BENCH_USAGE_RUNS runs
 * (default 200,000) of 1,000 owners over 60 days, each with two model calls (two models) and a
 * tool call, on SQLite and PostgreSQL. Times the last day by hour, the last 30 days by day (all
 * owners, then one owner's) and the last 30 days by agent. Skips PostgreSQL when it is unreachable.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRunTable } from '../core/runs/open-run-table.ts';
import type { RunTable } from '../core/runs/run-table.ts';
import type { UsageQuery } from '../core/runs/run-usage-query.ts';
import { PostgresStore } from '../core/store/postgres.ts';
import { SqliteStore } from '../core/store/sqlite.ts';
import { CAVEAT, DATABASE_URL, dropSchema, servicesUnreachable, uniqueName } from './scale-services.ts';

const RUNS = Number(process.env.HUBOS_BENCH_USAGE_RUNS ?? 200_000);
const OWNERS = 1_000;
const SAMPLES = 20;
const DAY = 86_400_000;
const NOW = Date.now();
const SPAN = 60 * DAY;

/** A UUIDv7-shaped id made at `time`. */
function idAt(time: number, n: number): string {
  const hex = time.toString(16).padStart(12, '0');
  const tail = n.toString(16).padStart(15, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7${tail.slice(0, 3)}-8${tail.slice(3, 6)}-${tail.slice(6).padStart(12, '0')}`;
}

/** Runs and their steps as the tables keep them, in batches. */
function* batches(count: number): Generator<{ runs: unknown[][]; steps: unknown[][] }> {
  let runs: unknown[][] = [];
  let steps: unknown[][] = [];
  for (let i = 0; i < count; i++) {
    const time = NOW - SPAN + Math.floor((i * SPAN) / count);
    const id = idAt(time, i);
    runs.push([id, i % 3 === 0 ? 'writer' : 'helper', `key:${i % OWNERS}`, 'rest', 'completed', time]);
    const usage = (input: number, cached: number) =>
      JSON.stringify({
        inputTokens: input,
        outputTokens: 50,
        ...(cached ? { cachedInputTokens: cached } : {}),
      });
    steps.push([
      id,
      1,
      'model',
      i % 2 ? 'openai:gpt-4.1-mini' : 'anthropic:claude-sonnet-4-20250514',
      time,
      time + 1,
      usage(1200, 600),
    ]);
    steps.push([id, 2, 'tool', 'echo', time + 1, time + 2, null]);
    steps.push([id, 3, 'model', 'openai:gpt-4.1', time + 2, time + 3, usage(1500, 0)]);
    if (runs.length === 5_000) {
      yield { runs, steps };
      runs = [];
      steps = [];
    }
  }
  if (runs.length) yield { runs, steps };
}

const RUN_INSERT = 'INSERT INTO hubos_runs (id, agent, owner, via, status, created_at)';
const STEP_INSERT =
  'INSERT INTO hubos_run_steps (run_id, seq, kind, name, started_at, finished_at, usage, step, status)';

function fillSqlite(store: SqliteStore): void {
  const db = store.database;
  const run = db.prepare(`${RUN_INSERT} VALUES (?, ?, ?, ?, ?, ?)`);
  const step = db.prepare(`${STEP_INSERT} VALUES (?, ?, ?, ?, ?, ?, ?, 1, 'ok')`);
  for (const batch of batches(RUNS)) {
    db.exec('BEGIN');
    for (const row of batch.runs) run.run(...(row as never[]));
    for (const row of batch.steps) step.run(...(row as never[]));
    db.exec('COMMIT');
  }
}

async function fillPostgres(store: PostgresStore): Promise<void> {
  const q = (table: string) => `"${store.schema}".${table}`;
  for (const batch of batches(RUNS)) {
    const runs = Array.from({ length: 6 }, (_, c) => batch.runs.map((row) => row[c]));
    await store.query(
      `${RUN_INSERT.replace('hubos_runs', q('hubos_runs'))}
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[])`,
      runs,
    );
    const steps = Array.from({ length: 7 }, (_, c) => batch.steps.map((row) => row[c]));
    await store.query(
      `${STEP_INSERT.replace('hubos_run_steps', q('hubos_run_steps'))}
       SELECT *, 1, 'ok' FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[])`,
      steps,
    );
  }
  await store.query(`ANALYZE ${q('hubos_runs')}`, []);
  await store.query(`ANALYZE ${q('hubos_run_steps')}`, []);
}

async function measure(name: string, table: RunTable): Promise<string[]> {
  const cases: [string, UsageQuery][] = [
    ['last day by hour', { from: NOW - DAY, to: NOW, bucketMs: 3_600_000, groupBy: 'none' }],
    ['last 30 days by day', { from: NOW - 30 * DAY, to: NOW, bucketMs: DAY, groupBy: 'none' }],
    [
      "one owner's last 30 days",
      { owner: 'key:7', from: NOW - 30 * DAY, to: NOW, bucketMs: DAY, groupBy: 'none' },
    ],
    ['last 30 days by agent', { from: NOW - 30 * DAY, to: NOW, bucketMs: DAY, groupBy: 'agent' }],
  ];
  const lines: string[] = [];
  for (const [label, query] of cases) {
    const took: number[] = [];
    let calls = 0;
    for (let i = 0; i < SAMPLES; i++) {
      const start = performance.now();
      const rows = await table.usage(query);
      took.push(performance.now() - start);
      calls = rows.reduce((sum, row) => sum + row.modelCalls, 0);
    }
    took.sort((a, b) => a - b);
    lines.push(
      `  ${name}, ${RUNS.toLocaleString('en')} runs, ${label} (${calls.toLocaleString('en')} model calls): p50 ${took[Math.floor(SAMPLES / 2)]!.toFixed(1)} ms, max ${took.at(-1)!.toFixed(1)} ms`,
    );
  }
  return lines;
}

const dir = mkdtempSync(join(tmpdir(), 'hubos-usage-'));
const lines: string[] = [];
try {
  const sqlite = new SqliteStore(join(dir, 'usage.db'));
  const table = await openRunTable(sqlite);
  fillSqlite(sqlite);
  lines.push(...(await measure('SQLite', table)));
  await sqlite.close();
  if (await servicesUnreachable({ postgres: true })) lines.push('  PostgreSQL: unreachable, skipped');
  else {
    const schema = uniqueName('usage');
    const store = await PostgresStore.open(DATABASE_URL, { schema });
    try {
      const pgTable = await openRunTable(store);
      await fillPostgres(store);
      lines.push(...(await measure('PostgreSQL', pgTable)));
    } finally {
      await store.close();
      await dropSchema(schema).catch(() => undefined);
    }
  }
  console.log(
    `Usage report (GET /api/usage's query, ${SAMPLES} runs each; caveat: ${CAVEAT}):\n${lines.join('\n')}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
