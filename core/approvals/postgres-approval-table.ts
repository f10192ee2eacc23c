import type { ApprovalRecord } from '../agent/approvals.ts';
import { numbered } from '../db/postgres-placeholders.ts';
import type { PostgresQuery } from '../runs/postgres-run-table.ts';
import {
  APPROVAL_COLUMNS,
  type ApprovalQuery,
  type ApprovalRow,
  type ApprovalTable,
  approvalFromRow,
  approvalListFilter,
  approvalToRow,
} from './approval-table.ts';

/** The approvals table on PostgreSQL: every write one statement, a decision one conditional UPDATE. */
export class PostgresApprovalTable implements ApprovalTable {
  readonly #query: PostgresQuery;
  readonly #table: string;

  constructor(query: PostgresQuery, schema: string) {
    this.#query = query;
    this.#table = `"${schema.replaceAll('"', '""')}".hubos_approvals`;
  }

  async put(record: ApprovalRecord): Promise<void> {
    await this.#query(
      `INSERT INTO ${this.#table} (${APPROVAL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (run_id, call_id) DO UPDATE SET owner = excluded.owner, status = excluded.status,
         requested_at = excluded.requested_at, decided_at = excluded.decided_at, record = excluded.record`,
      approvalToRow(record),
    );
  }

  async insertMany(records: readonly ApprovalRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    // One statement whatever the number: a column of each, unnested into rows.
    const rows = records.map(approvalToRow);
    const columns = APPROVAL_COLUMNS.split(', ').map((_, c) => rows.map((row) => row[c]));
    const { rowCount } = await this.#query(
      `INSERT INTO ${this.#table} (${APPROVAL_COLUMNS})
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[])
       ON CONFLICT (run_id, call_id) DO NOTHING`,
      columns,
    );
    return rowCount ?? 0;
  }

  async get(runId: string, callId: string): Promise<ApprovalRecord | undefined> {
    const { rows } = await this.#query<ApprovalRow>(
      `SELECT record FROM ${this.#table} WHERE run_id = $1 AND call_id = $2`,
      [runId, callId],
    );
    return rows[0] && approvalFromRow(rows[0]);
  }

  async compareAndSet(expected: ApprovalRecord, next: ApprovalRecord): Promise<boolean> {
    const [runId, callId, owner, status, requestedAt, decidedAt, record] = approvalToRow(next);
    const { rowCount } = await this.#query(
      `UPDATE ${this.#table} SET owner = $1, status = $2, requested_at = $3, decided_at = $4, record = $5
       WHERE run_id = $6 AND call_id = $7 AND record = $8`,
      [owner, status, requestedAt, decidedAt, record, runId, callId, JSON.stringify(expected)],
    );
    return (rowCount ?? 0) > 0;
  }

  async ofRun(runId: string, all: boolean): Promise<ApprovalRecord[]> {
    const { rows } = await this.#query<ApprovalRow>(
      `SELECT record FROM ${this.#table} WHERE run_id = $1 ${all ? '' : "AND status = 'pending'"}
       ORDER BY requested_at, call_id`,
      [runId],
    );
    return rows.map(approvalFromRow);
  }

  async list(query: ApprovalQuery): Promise<ApprovalRecord[]> {
    const { where, values } = approvalListFilter(query);
    const { rows } = await this.#query<ApprovalRow>(
      `SELECT record FROM ${this.#table} ${numbered(where)} ORDER BY requested_at, run_id, call_id
       LIMIT $${values.length + 1}`,
      [...values, query.limit],
    );
    return rows.map(approvalFromRow);
  }

  async deleteDecidedBefore(time: number, limit: number): Promise<number> {
    const { rowCount } = await this.#query(
      `DELETE FROM ${this.#table} WHERE (run_id, call_id) IN (
         SELECT run_id, call_id FROM ${this.#table} WHERE status <> 'pending' AND decided_at < $1
         ORDER BY decided_at LIMIT $2)`,
      [time, limit],
    );
    return rowCount ?? 0;
  }

  async deleteOwned(owner: string, limit: number): Promise<number> {
    const { rowCount } = await this.#query(
      `DELETE FROM ${this.#table} WHERE (run_id, call_id) IN (
         SELECT run_id, call_id FROM ${this.#table} WHERE owner = $1 LIMIT $2)`,
      [owner, limit],
    );
    return rowCount ?? 0;
  }
}
