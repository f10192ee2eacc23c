import { numbered } from '../db/postgres-placeholders.ts';
import type { RunRecord } from './run-record.ts';
import {
  fromRow,
  type JournalEntry,
  type JournalRow,
  journalFromRow,
  listFilter,
  type PayloadRow,
  RUN_COLUMNS,
  RUN_LIST_COLUMNS,
  type RunClaim,
  type RunQuery,
  type RunRow,
  type RunStep,
  type RunTable,
  replaceValues,
  STEP_COLUMNS,
  STEP_WRITE_COLUMNS,
  STEP_WRITE_COUNT,
  type StepRow,
  type StoredStep,
  stepFromRow,
  stepToRow,
  toRow,
} from './run-table.ts';
import {
  type UsageQuery,
  type UsageRow,
  type UsageSqlRow,
  usageFromRow,
  usageSql,
} from './run-usage-query.ts';

/**
 * Runs one statement (retried by the store while PostgreSQL is unreachable). `prepared`: a statement
 * of every run, whose text never varies, kept parsed and planned on each connection (a named one).
 */
export type PostgresQuery = <R>(
  sql: string,
  params: unknown[],
  prepared?: boolean,
) => Promise<{ rows: R[]; rowCount: number | null }>;

/** Step rows as one JSON parameter: the statement's text is the same whatever their number. */
const STEP_RECORDSET = `json_to_recordset(?::json) AS s(run_id text, seq integer, kind text, name text,
  step integer, call_id text, started_at bigint, finished_at bigint, status text, usage text,
  finish_reason text, error text, detail text, track text, first_token_ms integer, permission text,
  approval text, preview text, payload_bytes integer, guardrails text, retries text, payload text)`;

function stepsJson(steps: readonly RunStep[]): string {
  const names = STEP_WRITE_COLUMNS.split(', ');
  return JSON.stringify(
    steps.map((step) => Object.fromEntries(stepToRow(step).map((value, i) => [names[i], value]))),
  );
}

/**
 * The runs tables on PostgreSQL. A queued run is taken with `FOR UPDATE SKIP LOCKED`, so instances
 * claiming at once each get other runs and none waits on another's lock; every other write is one
 * statement whose WHERE says where the run must still be.
 */
export class PostgresRunTable implements RunTable {
  readonly #query: PostgresQuery;
  readonly #runs: string;
  readonly #steps: string;
  readonly #journal: string;
  readonly #approvals: string;

  constructor(query: PostgresQuery, schema: string) {
    this.#query = query;
    const quoted = `"${schema.replaceAll('"', '""')}"`;
    this.#runs = `${quoted}.hubos_runs`;
    this.#steps = `${quoted}.hubos_run_steps`;
    this.#journal = `${quoted}.hubos_run_journal`;
    this.#approvals = `${quoted}.hubos_approvals`;
  }

  async insert(record: RunRecord): Promise<boolean> {
    const { rowCount } = await this.#query(
      `INSERT INTO ${this.#runs} (${RUN_COLUMNS}) VALUES (${numbered(Array.from({ length: 20 }, () => '?').join(', '))})
       ON CONFLICT (id) DO NOTHING`,
      toRow(record),
      true,
    );
    return (rowCount ?? 0) > 0;
  }

  async get(id: string): Promise<RunRecord | undefined> {
    const { rows } = await this.#query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM ${this.#runs} WHERE id = $1`,
      [id],
      true,
    );
    return rows[0] && fromRow(rows[0]);
  }

  async progress(id: string, instance: string, steps: number, at: number): Promise<void> {
    await this.#query(
      `UPDATE ${this.#runs} SET steps = $1, updated_at = $2 WHERE id = $3 AND instance = $4 AND status = 'running'`,
      [steps, at, id, instance],
      true,
    );
  }

  async replace(record: RunRecord, from: RunClaim): Promise<boolean> {
    const { rowCount } = await this.#query(
      `UPDATE ${this.#runs} ${REPLACE_SET_WHERE}`,
      replaceValues(record, from),
      true,
    );
    return (rowCount ?? 0) > 0;
  }

  // One statement: the steps go in and the journal goes only if the record was written. Run again
  // (the store's retry, its first answer lost after the commit), it finds this very end written.
  async finish(record: RunRecord, from: RunClaim, steps: readonly RunStep[]): Promise<boolean> {
    const { rows } = await this.#query<{ ended: number | string }>(
      `WITH ended AS (UPDATE ${this.#runs} ${REPLACE_SET_WHERE} RETURNING 1),
         already AS (
           SELECT 1 FROM ${this.#runs} WHERE id = $10 AND status = $1
             AND instance IS NOT DISTINCT FROM $2 AND finished_at IS NOT DISTINCT FROM $8),
         steps AS (
           INSERT INTO ${this.#steps} (${STEP_WRITE_COLUMNS})
           SELECT ${STEP_WRITE_COLUMNS} FROM ${numbered(STEP_RECORDSET, 13)}
           WHERE EXISTS (SELECT 1 FROM ended)
           ON CONFLICT (run_id, seq) DO NOTHING
         ),
         journal AS (DELETE FROM ${this.#journal} WHERE run_id = $10 AND EXISTS (SELECT 1 FROM ended))
       SELECT (SELECT count(*) FROM ended) + (SELECT count(*) FROM already) AS ended`,
      [...replaceValues(record, from), stepsJson(steps)],
      true,
    );
    return Number(rows[0]?.ended ?? 0) > 0;
  }

  async claimQueued(instance: string, limit: number, at: number): Promise<RunRecord[]> {
    if (limit <= 0) return [];
    const { rows } = await this.#query<RunRow>(
      `UPDATE ${this.#runs} SET status = 'running', instance = $1, started_at = $2, updated_at = $2
       WHERE id IN (
         SELECT id FROM ${this.#runs} WHERE status = 'queued' ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED
       ) AND status = 'queued'
       RETURNING ${RUN_COLUMNS}`,
      [instance, at, limit],
    );
    return rows.map(fromRow).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  async activeElsewhere(instance: string): Promise<RunRecord[]> {
    const { rows } = await this.#query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM ${this.#runs}
       WHERE status IN ('queued', 'running') AND (instance IS NULL OR instance <> $1)`,
      [instance],
    );
    return rows.map(fromRow);
  }

  async cancelRequested(instance: string): Promise<string[]> {
    const { rows } = await this.#query<{ id: string }>(
      `SELECT id FROM ${this.#runs} WHERE status IN ('queued', 'running') AND instance = $1 AND cancel_requested = 1`,
      [instance],
    );
    return rows.map((row) => row.id);
  }

  async requestCancel(id: string): Promise<boolean> {
    const { rowCount } = await this.#query(
      `UPDATE ${this.#runs} SET cancel_requested = 1 WHERE id = $1 AND status = 'running'`,
      [id],
    );
    return (rowCount ?? 0) > 0;
  }

  async list(query: RunQuery): Promise<RunRecord[]> {
    const { where, values } = listFilter(query, 'postgres');
    const { rows } = await this.#query<RunRow>(
      `SELECT ${RUN_LIST_COLUMNS} FROM ${this.#runs} ${numbered(where)} ORDER BY id DESC LIMIT $${values.length + 1}`,
      [...values, query.limit],
    );
    return rows.map(fromRow);
  }

  async delete(id: string): Promise<boolean> {
    const { rows } = await this.#query<{ deleted: number | string }>(
      `WITH steps AS (DELETE FROM ${this.#steps} WHERE run_id = $1),
         journal AS (DELETE FROM ${this.#journal} WHERE run_id = $1),
         approvals AS (DELETE FROM ${this.#approvals} WHERE run_id = $1),
         gone AS (DELETE FROM ${this.#runs} WHERE id = $1 RETURNING 1)
       SELECT count(*) AS deleted FROM gone`,
      [id],
    );
    return Number(rows[0]?.deleted ?? 0) > 0;
  }

  async endedBefore(before: string, limit: number, owner?: string): Promise<string[]> {
    const { rows } = await this.#query<{ id: string }>(
      `SELECT id FROM ${this.#runs} WHERE id < $1 AND status NOT IN ('queued', 'running')
       AND ($3::text IS NULL OR owner = $3) ORDER BY id LIMIT $2`,
      [before, limit, owner ?? null],
    );
    return rows.map((row) => row.id);
  }

  async idAtRank(rank: number): Promise<string | undefined> {
    const { rows } = await this.#query<{ id: string }>(
      `SELECT id FROM ${this.#runs} ORDER BY id DESC LIMIT 1 OFFSET $1`,
      [rank],
    );
    return rows[0]?.id;
  }

  async deleteMany(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const { rows } = await this.#query<{ deleted: number | string }>(
      `WITH steps AS (DELETE FROM ${this.#steps} WHERE run_id = ANY($1::text[])),
         journal AS (DELETE FROM ${this.#journal} WHERE run_id = ANY($1::text[])),
         approvals AS (DELETE FROM ${this.#approvals} WHERE run_id = ANY($1::text[])),
         gone AS (DELETE FROM ${this.#runs} WHERE id = ANY($1::text[]) RETURNING 1)
       SELECT count(*) AS deleted FROM gone`,
      [ids],
    );
    return Number(rows[0]?.deleted ?? 0);
  }

  async addSteps(steps: readonly RunStep[], holder?: string): Promise<boolean> {
    if (steps.length === 0) return true;
    if (holder === undefined) {
      await this.#query(
        `INSERT INTO ${this.#steps} (${STEP_WRITE_COLUMNS})
         SELECT ${STEP_WRITE_COLUMNS} FROM ${numbered(STEP_RECORDSET)}
         ON CONFLICT (run_id, seq) DO NOTHING`,
        [stepsJson(steps)],
        true,
      );
      return true;
    }
    // As a journal entry is: the run's row share-locked, so a takeover waits for it or is seen.
    const { rows } = await this.#query<{ held: boolean }>(
      `WITH held AS (
         SELECT id FROM ${this.#runs} WHERE id = $2 AND status = 'running' AND instance = $3 FOR SHARE),
       kept AS (
         INSERT INTO ${this.#steps} (${STEP_WRITE_COLUMNS})
         SELECT ${STEP_WRITE_COLUMNS} FROM ${numbered(STEP_RECORDSET)}
         WHERE EXISTS (SELECT 1 FROM held)
         ON CONFLICT (run_id, seq) DO NOTHING)
       SELECT EXISTS (SELECT 1 FROM held) AS held`,
      [stepsJson(steps), steps[0]!.runId, holder],
      true,
    );
    return rows[0]?.held === true;
  }

  async keepStep(step: RunStep, instance: string): Promise<boolean> {
    const [runId, , ...rest] = stepToRow(step);
    // Numbered after the run's last step, and only while the run is still this instance's.
    const { rowCount } = await this.#query(
      `INSERT INTO ${this.#steps} (${STEP_WRITE_COLUMNS})
       SELECT $1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM ${this.#steps} WHERE run_id = $1), ${numbered(KEEP_MARKS, 2)}
       WHERE EXISTS (SELECT 1 FROM ${this.#runs} WHERE id = $1 AND status = 'running' AND instance = $${STEP_WRITE_COUNT})`,
      [runId, ...rest, instance],
      true,
    );
    return (rowCount ?? 0) > 0;
  }

  async runningOn(instance: string): Promise<string[]> {
    const { rows } = await this.#query<{ id: string }>(
      `SELECT id FROM ${this.#runs} WHERE status = 'running' AND instance = $1`,
      [instance],
    );
    return rows.map((row) => row.id);
  }

  async steps(runId: string): Promise<RunStep[]> {
    const { rows } = await this.#query<StepRow>(
      `SELECT ${STEP_COLUMNS} FROM ${this.#steps} WHERE run_id = $1 ORDER BY seq`,
      [runId],
    );
    return rows.map(stepFromRow);
  }

  async step(runId: string, seq: number): Promise<StoredStep | undefined> {
    const { rows } = await this.#query<StepRow & PayloadRow>(
      `SELECT ${STEP_COLUMNS}, payload FROM ${this.#steps} WHERE run_id = $1 AND seq = $2`,
      [runId, seq],
    );
    return rows[0] && { step: stepFromRow(rows[0]), payload: rows[0].payload };
  }

  async usage(query: UsageQuery): Promise<UsageRow[]> {
    const { sql, values } = usageSql('postgres', this.#runs, this.#steps, query);
    const { rows } = await this.#query<UsageSqlRow>(numbered(sql), values);
    return rows.map(usageFromRow);
  }

  async journal(entry: JournalEntry, holder: string): Promise<boolean> {
    // The run's row is share-locked: a takeover (which updates it) waits for this write, or this
    // look sees the row it wrote and writes nothing. A statement run again finds its entry there.
    const { rows } = await this.#query<{ held: boolean }>(
      `WITH held AS (
         SELECT id FROM ${this.#runs} WHERE id = $1 AND status = 'running' AND instance = $5 FOR SHARE),
       kept AS (
         INSERT INTO ${this.#journal} (run_id, seq, step, messages)
         SELECT id, $2, $3, $4 FROM held
         ON CONFLICT (run_id, seq) DO NOTHING)
       SELECT EXISTS (SELECT 1 FROM held) AS held`,
      [entry.runId, entry.seq, entry.step, JSON.stringify(entry.messages), holder],
      true,
    );
    return rows[0]?.held === true;
  }

  async readJournal(runId: string): Promise<JournalEntry[]> {
    const { rows } = await this.#query<JournalRow>(
      `SELECT run_id, seq, step, messages FROM ${this.#journal} WHERE run_id = $1 ORDER BY seq`,
      [runId],
    );
    return rows.map(journalFromRow);
  }

  async dropJournal(runId: string): Promise<void> {
    await this.#query(`DELETE FROM ${this.#journal} WHERE run_id = $1`, [runId]);
  }
}

/** The placeholders of a kept step's values after its run id and seq. */
const KEEP_MARKS = Array.from({ length: STEP_WRITE_COUNT - 2 }, () => '?').join(', ');

/** The SET and WHERE of a fenced write of a run's record ($1–$12, as `replaceValues` gives them). */
const REPLACE_SET_WHERE = `SET status = $1, instance = $2, steps = $3, result = $4, error = $5, started_at = $6,
    updated_at = $7, finished_at = $8, resumes = $9, cancel_requested = 0
  WHERE id = $10 AND status = $11 AND ($12::text IS NULL OR instance = $12)`;
