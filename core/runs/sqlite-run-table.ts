import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { errorMessage, HubosError } from '../errors.ts';
import type { RunRecord } from './run-record.ts';
import {
  fromRow,
  listFilter,
  RUN_COLUMNS,
  RUN_LIST_COLUMNS,
  type RunClaim,
  type RunQuery,
  type RunRow,
  type RunStep,
  type RunTable,
  STEP_COLUMNS,
  type StepRow,
  stepFromRow,
  stepToRow,
  toRow,
} from './run-table.ts';

/**
 * The runs tables in a SQLite file (or in memory): prepared statements on the store's connection.
 * Each write is one statement, or a few under BEGIN IMMEDIATE, so processes sharing the file take
 * a queued run once each.
 */
export class SqliteRunTable implements RunTable {
  readonly #db: DatabaseSync;
  readonly #label: string;
  readonly #insert: StatementSync;
  readonly #get: StatementSync;
  readonly #progress: StatementSync;
  readonly #replace: StatementSync;
  readonly #queued: StatementSync;
  readonly #take: StatementSync;
  readonly #elsewhere: StatementSync;
  readonly #cancels: StatementSync;
  readonly #requestCancel: StatementSync;
  readonly #deleteRun: StatementSync;
  readonly #deleteSteps: StatementSync;
  readonly #addStep: StatementSync;
  readonly #steps: StatementSync;
  readonly #endedBefore: StatementSync;
  readonly #endedBeforeOf: StatementSync;
  readonly #idAtRank: StatementSync;
  readonly #lists = new Map<string, StatementSync>();

  constructor(db: DatabaseSync, label: string) {
    this.#db = db;
    this.#label = label;
    const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');
    this.#insert = db.prepare(
      `INSERT INTO hubos_runs (${RUN_COLUMNS}) VALUES (${marks(15)}) ON CONFLICT (id) DO NOTHING`,
    );
    this.#get = db.prepare(`SELECT ${RUN_COLUMNS} FROM hubos_runs WHERE id = ?`);
    this.#progress = db.prepare(
      "UPDATE hubos_runs SET steps = ?, updated_at = ? WHERE id = ? AND instance = ? AND status = 'running'",
    );
    this.#replace = db.prepare(
      `UPDATE hubos_runs SET status = ?, instance = ?, steps = ?, result = ?, error = ?, started_at = ?, updated_at = ?, finished_at = ?, cancel_requested = 0
       WHERE id = ? AND status = ? AND (? IS NULL OR instance = ?)`,
    );
    this.#queued = db.prepare("SELECT id FROM hubos_runs WHERE status = 'queued' ORDER BY id LIMIT ?");
    this.#take = db.prepare(
      `UPDATE hubos_runs SET status = 'running', instance = ?, started_at = ?, updated_at = ?
       WHERE id = ? AND status = 'queued' RETURNING ${RUN_COLUMNS}`,
    );
    this.#elsewhere = db.prepare(
      `SELECT ${RUN_COLUMNS} FROM hubos_runs WHERE status IN ('queued', 'running') AND (instance IS NULL OR instance <> ?)`,
    );
    this.#cancels = db.prepare(
      "SELECT id FROM hubos_runs WHERE status IN ('queued', 'running') AND instance = ? AND cancel_requested = 1",
    );
    this.#requestCancel = db.prepare(
      "UPDATE hubos_runs SET cancel_requested = 1 WHERE id = ? AND status = 'running'",
    );
    this.#deleteRun = db.prepare('DELETE FROM hubos_runs WHERE id = ?');
    this.#deleteSteps = db.prepare('DELETE FROM hubos_run_steps WHERE run_id = ?');
    this.#addStep = db.prepare(
      `INSERT INTO hubos_run_steps (${STEP_COLUMNS}) VALUES (${marks(12)}) ON CONFLICT (run_id, seq) DO NOTHING`,
    );
    this.#endedBefore = db.prepare(
      "SELECT id FROM hubos_runs WHERE id < ? AND status NOT IN ('queued', 'running') ORDER BY id LIMIT ?",
    );
    this.#endedBeforeOf = db.prepare(
      "SELECT id FROM hubos_runs WHERE owner = ? AND id < ? AND status NOT IN ('queued', 'running') ORDER BY id LIMIT ?",
    );
    this.#idAtRank = db.prepare('SELECT id FROM hubos_runs ORDER BY id DESC LIMIT 1 OFFSET ?');
    this.#steps = db.prepare(`SELECT ${STEP_COLUMNS} FROM hubos_run_steps WHERE run_id = ? ORDER BY seq`);
  }

  async insert(record: RunRecord): Promise<void> {
    this.#run(() => this.#insert.run(...(toRow(record) as never[])));
  }

  async get(id: string): Promise<RunRecord | undefined> {
    const row = this.#run(() => this.#get.get(id)) as RunRow | undefined;
    return row && fromRow(row);
  }

  async progress(id: string, instance: string, steps: number, at: number): Promise<void> {
    this.#run(() => this.#progress.run(steps, at, id, instance));
  }

  async replace(record: RunRecord, from: RunClaim): Promise<boolean> {
    const row = toRow(record);
    const result = this.#run(() =>
      this.#replace.run(
        record.status,
        record.instance ?? null,
        record.steps ?? 0,
        row[9] as string | null,
        row[10] as string | null,
        row[12] as number | null,
        row[13] as number | null,
        row[14] as number | null,
        record.id,
        from.status,
        from.instance ?? null,
        from.instance ?? null,
      ),
    );
    return Number(result.changes) > 0;
  }

  async claimQueued(instance: string, limit: number, at: number): Promise<RunRecord[]> {
    if (limit <= 0) return [];
    return this.#run(() => {
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        const ids = this.#queued.all(limit) as { id: string }[];
        const taken = ids.flatMap(({ id }) => {
          const row = this.#take.get(instance, at, at, id) as RunRow | undefined;
          return row ? [fromRow(row)] : [];
        });
        this.#db.exec('COMMIT');
        return taken;
      } catch (error) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  async activeElsewhere(instance: string): Promise<RunRecord[]> {
    return (this.#run(() => this.#elsewhere.all(instance)) as unknown as RunRow[]).map(fromRow);
  }

  async cancelRequested(instance: string): Promise<string[]> {
    return (this.#run(() => this.#cancels.all(instance)) as { id: string }[]).map((row) => row.id);
  }

  async requestCancel(id: string): Promise<boolean> {
    return Number(this.#run(() => this.#requestCancel.run(id)).changes) > 0;
  }

  async list(query: RunQuery): Promise<RunRecord[]> {
    const { where, values } = listFilter(query);
    let statement = this.#lists.get(where);
    if (!statement) {
      statement = this.#db.prepare(
        `SELECT ${RUN_LIST_COLUMNS} FROM hubos_runs ${where} ORDER BY id DESC LIMIT ?`,
      );
      this.#lists.set(where, statement);
    }
    const rows = this.#run(() => statement.all(...(values as never[]), query.limit)) as unknown as RunRow[];
    return rows.map(fromRow);
  }

  async delete(id: string): Promise<boolean> {
    return this.#run(() => {
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        this.#deleteSteps.run(id);
        const deleted = Number(this.#deleteRun.run(id).changes) > 0;
        this.#db.exec('COMMIT');
        return deleted;
      } catch (error) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  async endedBefore(before: string, limit: number, owner?: string): Promise<string[]> {
    const rows = this.#run(() =>
      owner === undefined
        ? this.#endedBefore.all(before, limit)
        : this.#endedBeforeOf.all(owner, before, limit),
    ) as { id: string }[];
    return rows.map((row) => row.id);
  }

  async idAtRank(rank: number): Promise<string | undefined> {
    return (this.#run(() => this.#idAtRank.get(rank)) as { id: string } | undefined)?.id;
  }

  async deleteMany(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.#run(() => {
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        let deleted = 0;
        for (const id of ids) {
          this.#deleteSteps.run(id);
          deleted += Number(this.#deleteRun.run(id).changes);
        }
        this.#db.exec('COMMIT');
        return deleted;
      } catch (error) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  async addSteps(steps: readonly RunStep[]): Promise<void> {
    if (steps.length === 0) return;
    this.#run(() => {
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        for (const step of steps) this.#addStep.run(...(stepToRow(step) as never[]));
        this.#db.exec('COMMIT');
      } catch (error) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  async steps(runId: string): Promise<RunStep[]> {
    return (this.#run(() => this.#steps.all(runId)) as unknown as StepRow[]).map(stepFromRow);
  }

  #run<T>(operation: () => T): T {
    try {
      return operation();
    } catch (error) {
      throw HubosError.is(error)
        ? error
        : new HubosError('STORE_FAILED', `store ${this.#label}: ${errorMessage(error)}`, { cause: error });
    }
  }
}
