/**
 * `GET /api/runs?limit=50` with many runs stored: the runs table's list, on SQLite and PostgreSQL,
 * filled with HUBOS_BENCH_RUNS runs (default 1,000,000) of 1,000 owners. Times pages of the
 * newest runs (an admin's and one owner's), a page deep behind a cursor, and a status filter; the
 * target is a p99 of 10 ms on both stores. Also the same first page with 1,000 runs stored, the
 * baseline it must not grow from. Skips PostgreSQL when it is unreachable.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRunTable } from '../core/runs/open-run-table.ts';
import type { RunQuery, RunTable } from '../core/runs/run-table.ts';
import { PostgresStore } from '../core/store/postgres.ts';
import { SqliteStore } from '../core/store/sqlite.ts';
import { CAVEAT, DATABASE_URL, dropSchema, servicesUnreachable, uniqueName } from './scale-services.ts';

const RUNS = Number(process.env.HUBOS_BENCH_RUNS ?? 1_000_000);
const OWNERS = 1_000;
const SAMPLES = 300;

/** A UUIDv7-shaped id made at `time`: what the engine's ids look like. */
function idAt(time: number, n: number): string {
  const hex = time.toString(16).padStart(12, '0');
  const tail = n.toString(16).padStart(15, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7${tail.slice(0, 3)}-8${tail.slice(3, 6)}-${tail.slice(6).padStart(12, '0')}`;
}

/** Rows as the table keeps them, in batches, straight in SQL: the engine's insert one by one would take hours. */
function* rows(count: number): Generator<unknown[][]> {
  const start = Date.now() - count * 10;
  let batch: unknown[][] = [];
  for (let i = 0; i < count; i++) {
    const time = start + i * 10;
    batch.push([
      idAt(time, i),
      'helper',
      `key:${i % OWNERS}`,
      'rest',
      i % 50 === 0 ? 'failed' : 'completed',
      `question ${i}`,
      time,
      time,
      time + 5,
    ]);
    if (batch.length === 5_000) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

const INSERT =
  'INSERT INTO hubos_runs (id, agent, owner, via, status, input, created_at, started_at, finished_at)';

function fillSqlite(store: SqliteStore, count: number): void {
  const db = store.database;
  const insert = db.prepare(`${INSERT} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  for (const batch of rows(count)) {
    db.exec('BEGIN');
    for (const row of batch) insert.run(...(row as never[]));
    db.exec('COMMIT');
  }
}

async function fillPostgres(store: PostgresStore, count: number): Promise<void> {
  for (const batch of rows(count)) {
    const columns = Array.from({ length: 9 }, (_, c) => batch.map((row) => row[c]));
    await store.query(
      `${INSERT.replace('hubos_runs', `"${store.schema}".hubos_runs`)}
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[])`,
      columns,
    );
  }
  await store.query(`ANALYZE "${store.schema}".hubos_runs`, []);
}

async function time(table: RunTable, query: RunQuery): Promise<{ p50: number; p99: number }> {
  const took: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    const page = await table.list(query);
    took.push(performance.now() - start);
    if (page.length === 0) throw new Error(`an empty page for ${JSON.stringify(query)}`);
  }
  took.sort((a, b) => a - b);
  return { p50: took[Math.floor(SAMPLES / 2)]!, p99: took[Math.floor(SAMPLES * 0.99)]! };
}

async function measure(name: string, table: RunTable, stored: number): Promise<string[]> {
  const deep = idAt(Date.now() - stored * 5, 0);
  const cases: [string, RunQuery][] = [
    ['newest 50 (admin)', { limit: 50 }],
    ["one owner's newest 50", { owner: 'key:7', limit: 50 }],
    ['50 behind a cursor halfway back', { limit: 50, before: deep }],
    ["one owner's failed runs", { owner: 'key:0', status: 'failed', limit: 50 }],
  ];
  const lines: string[] = [];
  for (const [label, query] of cases) {
    const { p50, p99 } = await time(table, query);
    lines.push(
      `  ${name}, ${stored.toLocaleString('en')} runs, ${label}: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms${p99 > 10 ? '  (over the 10 ms target)' : ''}`,
    );
  }
  return lines;
}

const dir = mkdtempSync(join(tmpdir(), 'hubos-run-list-'));
const lines: string[] = [];
try {
  for (const stored of [1_000, RUNS]) {
    const sqlite = new SqliteStore(join(dir, `runs-${stored}.db`));
    const table = await openRunTable(sqlite);
    fillSqlite(sqlite, stored);
    lines.push(...(await measure('SQLite', table, stored)));
    await sqlite.close();
  }
  if (await servicesUnreachable({ postgres: true })) lines.push('  PostgreSQL: unreachable, skipped');
  else {
    for (const stored of [1_000, RUNS]) {
      const schema = uniqueName('runlist');
      const store = await PostgresStore.open(DATABASE_URL, { schema });
      try {
        const table = await openRunTable(store);
        await fillPostgres(store, stored);
        lines.push(...(await measure('PostgreSQL', table, stored)));
      } finally {
        await store.close();
        await dropSchema(schema).catch(() => undefined);
      }
    }
  }
  console.log(
    `Run list (GET /api/runs's query, ${SAMPLES} pages each; caveat: ${CAVEAT}):\n${lines.join('\n')}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
