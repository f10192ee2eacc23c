import type { RunSurface } from './run-record.ts';
import { idAt } from './run-table.ts';

/** How `RunTable.usage` splits its sums besides by model: by agent, by owner, or not at all. */
export type UsageGroupBy = 'agent' | 'owner' | 'none';

/** Which model calls `RunTable.usage` sums: those of runs created in [from, to), every filter optional. */
export interface UsageQuery {
  /** Only this principal's runs (undefined: everyone's, for an admin). */
  owner?: string | undefined;
  agent?: string | undefined;
  via?: RunSurface | undefined;
  /** Runs created at or after this time (ms since the epoch). */
  from: number;
  /** Runs created before this time (ms). */
  to: number;
  /** Bucket length in ms (an hour, a day); buckets start at multiples of it (UTC). */
  bucketMs: number;
  groupBy: UsageGroupBy;
}

/** The sums of one model's calls in one bucket (and group): what `RunTable.usage` answers. */
export interface UsageRow {
  /** The bucket's start (ms), from the run's creation time. */
  bucket: number;
  /** The agent or owner (`''` when not grouped). */
  group: string;
  model: string;
  /** Runs that called this model. */
  runs: number;
  /** Of those, the runs counted here and under no other model (each run is counted once). */
  firstRuns: number;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/** A row as both dialects give it (PostgreSQL's sums come as strings). */
export interface UsageSqlRow {
  bucket: number | string;
  grp: string;
  model: string;
  runs: number | string;
  first_runs: number | string;
  calls: number | string;
  input: number | string | null;
  output: number | string | null;
  cached: number | string | null;
}

/**
 * The one statement of a usage query, with `?` placeholders: model steps joined to their runs,
 * both read by a run-id range (ids are time-ordered, so it is a primary-key range), summed per run and
 * model, then per bucket, group and model. Each run is marked under one of its models (the first
 * by name), so totals over models count it once.
 */
export function usageSql(
  dialect: 'sqlite' | 'postgres',
  runs: string,
  steps: string,
  query: UsageQuery,
): { sql: string; values: unknown[] } {
  const num = (key: string) =>
    dialect === 'sqlite'
      ? `COALESCE(json_extract(s.usage, '$.${key}'), 0)`
      : `COALESCE((s.usage::jsonb ->> '${key}')::numeric, 0)`;
  const group = query.groupBy === 'none' ? "''" : `r.${query.groupBy}`;
  // The range on both tables: steps are keyed by (run_id, seq), so they are read by a key range too,
  // not scanned whole for a join (PostgreSQL would hash-join every step of every run otherwise).
  const where = ['r.id >= ?', 'r.id < ?', 's.run_id >= ?', 's.run_id < ?', "s.kind = 'model'"];
  const values: unknown[] = [idAt(query.from), idAt(query.to), idAt(query.from), idAt(query.to)];
  // A whole number of ms, written in: both dialects then divide integers.
  const size = Math.max(1, Math.trunc(query.bucketMs));
  for (const key of ['owner', 'agent', 'via'] as const) {
    if (query[key] === undefined) continue;
    where.push(`r.${key} = ?`);
    values.push(query[key]);
  }
  const sql = `SELECT bucket, grp, model, COUNT(*) AS runs, SUM(first_run) AS first_runs, SUM(calls) AS calls,
      SUM(input) AS input, SUM(output) AS output, SUM(cached) AS cached
    FROM (
      SELECT (r.created_at / ${size}) * ${size} AS bucket, ${group} AS grp, s.name AS model, COUNT(*) AS calls,
        SUM(${num('inputTokens')}) AS input, SUM(${num('outputTokens')}) AS output,
        SUM(${num('cachedInputTokens')}) AS cached,
        CASE WHEN ROW_NUMBER() OVER (PARTITION BY r.id ORDER BY s.name) = 1 THEN 1 ELSE 0 END AS first_run
      FROM ${runs} r JOIN ${steps} s ON s.run_id = r.id
      WHERE ${where.join(' AND ')}
      GROUP BY r.id, r.created_at, ${group === "''" ? '' : `${group}, `}s.name
    ) per_run
    GROUP BY bucket, grp, model
    ORDER BY bucket, grp, model`;
  return { sql, values };
}

export function usageFromRow(row: UsageSqlRow): UsageRow {
  return {
    bucket: Number(row.bucket),
    group: row.grp,
    model: row.model,
    runs: Number(row.runs),
    firstRuns: Number(row.first_runs),
    modelCalls: Number(row.calls),
    inputTokens: Number(row.input ?? 0),
    outputTokens: Number(row.output ?? 0),
    cachedInputTokens: Number(row.cached ?? 0),
  };
}
