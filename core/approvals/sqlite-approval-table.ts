import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { ApprovalRecord } from '../agent/approvals.ts';
import { onSqlite } from '../db/sqlite-failure.ts';
import { immediately } from '../db/sqlite-transaction.ts';
import {
  APPROVAL_COLUMNS,
  type ApprovalQuery,
  type ApprovalRow,
  type ApprovalTable,
  approvalFromRow,
  approvalListFilter,
  approvalToRow,
} from './approval-table.ts';

/** The approvals table in a SQLite file (or in memory): each write one statement, so one commit. */
export class SqliteApprovalTable implements ApprovalTable {
  readonly #db: DatabaseSync;
  readonly #label: string;
  readonly #put: StatementSync;
  readonly #insert: StatementSync;
  readonly #get: StatementSync;
  readonly #swap: StatementSync;
  readonly #ofRun: StatementSync;
  readonly #pendingOfRun: StatementSync;
  readonly #deleteDecided: StatementSync;
  readonly #deleteOwned: StatementSync;
  readonly #lists = new Map<string, StatementSync>();

  constructor(db: DatabaseSync, label: string) {
    this.#db = db;
    this.#label = label;
    const marks = '?, ?, ?, ?, ?, ?, ?';
    this.#put = db.prepare(
      `INSERT INTO hubos_approvals (${APPROVAL_COLUMNS}) VALUES (${marks})
       ON CONFLICT (run_id, call_id) DO UPDATE SET owner = excluded.owner, status = excluded.status,
         requested_at = excluded.requested_at, decided_at = excluded.decided_at, record = excluded.record`,
    );
    this.#insert = db.prepare(
      `INSERT INTO hubos_approvals (${APPROVAL_COLUMNS}) VALUES (${marks}) ON CONFLICT (run_id, call_id) DO NOTHING`,
    );
    this.#get = db.prepare('SELECT record FROM hubos_approvals WHERE run_id = ? AND call_id = ?');
    this.#swap = db.prepare(
      `UPDATE hubos_approvals SET owner = ?, status = ?, requested_at = ?, decided_at = ?, record = ?
       WHERE run_id = ? AND call_id = ? AND record = ?`,
    );
    this.#ofRun = db.prepare(
      'SELECT record FROM hubos_approvals WHERE run_id = ? ORDER BY requested_at, call_id',
    );
    this.#pendingOfRun = db.prepare(
      "SELECT record FROM hubos_approvals WHERE run_id = ? AND status = 'pending' ORDER BY requested_at, call_id",
    );
    this.#deleteDecided = db.prepare(
      `DELETE FROM hubos_approvals WHERE rowid IN (
         SELECT rowid FROM hubos_approvals WHERE status <> 'pending' AND decided_at < ? ORDER BY decided_at LIMIT ?)`,
    );
    this.#deleteOwned = db.prepare(
      'DELETE FROM hubos_approvals WHERE rowid IN (SELECT rowid FROM hubos_approvals WHERE owner = ? LIMIT ?)',
    );
  }

  async put(record: ApprovalRecord): Promise<void> {
    this.#run(() => this.#put.run(...(approvalToRow(record) as never[])));
  }

  async insertMany(records: readonly ApprovalRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    return this.#run(() =>
      immediately(this.#db, () =>
        records.reduce(
          (written, record) =>
            written + Number(this.#insert.run(...(approvalToRow(record) as never[])).changes),
          0,
        ),
      ),
    );
  }

  async get(runId: string, callId: string): Promise<ApprovalRecord | undefined> {
    const row = this.#run(() => this.#get.get(runId, callId)) as ApprovalRow | undefined;
    return row && approvalFromRow(row);
  }

  async compareAndSet(expected: ApprovalRecord, next: ApprovalRecord): Promise<boolean> {
    const [runId, callId, owner, status, requestedAt, decidedAt, record] = approvalToRow(next);
    const values = [owner, status, requestedAt, decidedAt, record, runId, callId, JSON.stringify(expected)];
    const result = this.#run(() => this.#swap.run(...(values as never[])));
    return Number(result.changes) > 0;
  }

  async ofRun(runId: string, all: boolean): Promise<ApprovalRecord[]> {
    const statement = all ? this.#ofRun : this.#pendingOfRun;
    return (this.#run(() => statement.all(runId)) as unknown as ApprovalRow[]).map(approvalFromRow);
  }

  async list(query: ApprovalQuery): Promise<ApprovalRecord[]> {
    const { where, values } = approvalListFilter(query);
    let statement = this.#lists.get(where);
    if (!statement) {
      statement = this.#db.prepare(
        `SELECT record FROM hubos_approvals ${where} ORDER BY requested_at, run_id, call_id LIMIT ?`,
      );
      this.#lists.set(where, statement);
    }
    const rows = this.#run(() =>
      statement.all(...(values as never[]), query.limit),
    ) as unknown as ApprovalRow[];
    return rows.map(approvalFromRow);
  }

  async deleteDecidedBefore(time: number, limit: number): Promise<number> {
    return Number(this.#run(() => this.#deleteDecided.run(time, limit)).changes);
  }

  async deleteOwned(owner: string, limit: number): Promise<number> {
    return Number(this.#run(() => this.#deleteOwned.run(owner, limit)).changes);
  }

  #run<T>(operation: () => T): T {
    return onSqlite(this.#label, operation);
  }
}
