import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { onSqlite } from '../db/sqlite-failure.ts';
import { immediately } from '../db/sqlite-transaction.ts';
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
  readonly #deleteApprovals: StatementSync;
  readonly #addStep: StatementSync;
  readonly #keepStep: StatementSync;
  readonly #runningOn: StatementSync;
  readonly #steps: StatementSync;
  readonly #step: StatementSync;
  readonly #endedBefore: StatementSync;
  readonly #endedBeforeOf: StatementSync;
  readonly #idAtRank: StatementSync;
  readonly #addJournal: StatementSync;
  readonly #held: StatementSync;
  readonly #endedAs: StatementSync;
  readonly #journal: StatementSync;
  readonly #dropJournal: StatementSync;
  readonly #lists = new Map<string, StatementSync>();
  /**
   * Writes waiting for the next commit: every write of one turn of the event loop (the records and
   * steps of all runs going on) goes in one transaction, each resolved once committed. A commit
   * costs more than the rows in it.
   */
  #pending: PendingWrite[] = [];
  #flushing: NodeJS.Immediate | undefined;

  constructor(db: DatabaseSync, label: string) {
    this.#db = db;
    this.#label = label;
    const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');
    this.#insert = db.prepare(
      `INSERT INTO hubos_runs (${RUN_COLUMNS}) VALUES (${marks(20)}) ON CONFLICT (id) DO NOTHING`,
    );
    this.#get = db.prepare(`SELECT ${RUN_COLUMNS} FROM hubos_runs WHERE id = ?`);
    this.#progress = db.prepare(
      "UPDATE hubos_runs SET steps = ?, updated_at = ? WHERE id = ? AND instance = ? AND status = 'running'",
    );
    this.#replace = db.prepare(
      `UPDATE hubos_runs SET status = ?, instance = ?, steps = ?, result = ?, error = ?, started_at = ?, updated_at = ?, finished_at = ?, resumes = ?, cancel_requested = 0
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
    // A run's approvals go with it (whether decided or not: nobody acts on them any more).
    this.#deleteApprovals = db.prepare('DELETE FROM hubos_approvals WHERE run_id = ?');
    this.#addStep = db.prepare(
      `INSERT INTO hubos_run_steps (${STEP_WRITE_COLUMNS}) VALUES (${marks(STEP_WRITE_COUNT)}) ON CONFLICT (run_id, seq) DO NOTHING`,
    );
    // Numbered after the run's last step, and only while the run is still this instance's.
    this.#keepStep = db.prepare(
      `INSERT INTO hubos_run_steps (${STEP_WRITE_COLUMNS})
       SELECT ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM hubos_run_steps WHERE run_id = ?), ${marks(STEP_WRITE_COUNT - 2)}
       WHERE EXISTS (SELECT 1 FROM hubos_runs WHERE id = ? AND status = 'running' AND instance = ?)`,
    );
    this.#runningOn = db.prepare("SELECT id FROM hubos_runs WHERE status = 'running' AND instance = ?");
    this.#endedBefore = db.prepare(
      "SELECT id FROM hubos_runs WHERE id < ? AND status NOT IN ('queued', 'running') ORDER BY id LIMIT ?",
    );
    this.#endedBeforeOf = db.prepare(
      "SELECT id FROM hubos_runs WHERE owner = ? AND id < ? AND status NOT IN ('queued', 'running') ORDER BY id LIMIT ?",
    );
    this.#idAtRank = db.prepare('SELECT id FROM hubos_runs ORDER BY id DESC LIMIT 1 OFFSET ?');
    this.#steps = db.prepare(`SELECT ${STEP_COLUMNS} FROM hubos_run_steps WHERE run_id = ? ORDER BY seq`);
    this.#step = db.prepare(
      `SELECT ${STEP_COLUMNS}, payload FROM hubos_run_steps WHERE run_id = ? AND seq = ?`,
    );
    this.#endedAs = db.prepare(
      'SELECT 1 AS ended FROM hubos_runs WHERE id = ? AND status = ? AND instance IS ? AND finished_at IS ?',
    );
    this.#held = db.prepare(
      "SELECT 1 AS held FROM hubos_runs WHERE id = ? AND status = 'running' AND instance = ?",
    );
    this.#addJournal = db.prepare(
      'INSERT INTO hubos_run_journal (run_id, seq, step, messages) VALUES (?, ?, ?, ?) ON CONFLICT (run_id, seq) DO NOTHING',
    );
    this.#journal = db.prepare(
      'SELECT run_id, seq, step, messages FROM hubos_run_journal WHERE run_id = ? ORDER BY seq',
    );
    this.#dropJournal = db.prepare('DELETE FROM hubos_run_journal WHERE run_id = ?');
  }

  insert(record: RunRecord): Promise<boolean> {
    const row = toRow(record) as never[];
    return this.#write(() => Number(this.#insert.run(...row).changes) > 0);
  }

  async get(id: string): Promise<RunRecord | undefined> {
    this.#flush();
    const row = this.#run(() => this.#get.get(id)) as RunRow | undefined;
    return row && fromRow(row);
  }

  progress(id: string, instance: string, steps: number, at: number): Promise<void> {
    return this.#write(() => {
      this.#progress.run(steps, at, id, instance);
    });
  }

  replace(record: RunRecord, from: RunClaim): Promise<boolean> {
    const values = sqliteReplaceValues(record, from);
    return this.#write(() => Number(this.#replace.run(...values).changes) > 0);
  }

  async claimQueued(instance: string, limit: number, at: number): Promise<RunRecord[]> {
    if (limit <= 0) return [];
    this.#flush();
    return this.#run(() =>
      immediately(this.#db, () => {
        const ids = this.#queued.all(limit) as { id: string }[];
        const taken = ids.flatMap(({ id }) => {
          const row = this.#take.get(instance, at, at, id) as RunRow | undefined;
          return row ? [fromRow(row)] : [];
        });
        return taken;
      }),
    );
  }

  async activeElsewhere(instance: string): Promise<RunRecord[]> {
    this.#flush();
    return (this.#run(() => this.#elsewhere.all(instance)) as unknown as RunRow[]).map(fromRow);
  }

  async cancelRequested(instance: string): Promise<string[]> {
    this.#flush();
    return (this.#run(() => this.#cancels.all(instance)) as { id: string }[]).map((row) => row.id);
  }

  async requestCancel(id: string): Promise<boolean> {
    this.#flush();
    return Number(this.#run(() => this.#requestCancel.run(id)).changes) > 0;
  }

  async list(query: RunQuery): Promise<RunRecord[]> {
    this.#flush();
    const { where, values } = listFilter(query, 'sqlite');
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
    this.#flush();
    return this.#run(() =>
      immediately(this.#db, () => {
        this.#deleteSteps.run(id);
        this.#dropJournal.run(id);
        this.#deleteApprovals.run(id);
        const deleted = Number(this.#deleteRun.run(id).changes) > 0;
        return deleted;
      }),
    );
  }

  async endedBefore(before: string, limit: number, owner?: string): Promise<string[]> {
    this.#flush();
    const rows = this.#run(() =>
      owner === undefined
        ? this.#endedBefore.all(before, limit)
        : this.#endedBeforeOf.all(owner, before, limit),
    ) as { id: string }[];
    return rows.map((row) => row.id);
  }

  async idAtRank(rank: number): Promise<string | undefined> {
    this.#flush();
    return (this.#run(() => this.#idAtRank.get(rank)) as { id: string } | undefined)?.id;
  }

  async deleteMany(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    this.#flush();
    return this.#run(() =>
      immediately(this.#db, () => {
        let deleted = 0;
        for (const id of ids) {
          this.#deleteSteps.run(id);
          this.#dropJournal.run(id);
          this.#deleteApprovals.run(id);
          deleted += Number(this.#deleteRun.run(id).changes);
        }
        return deleted;
      }),
    );
  }

  addSteps(steps: readonly RunStep[], holder?: string): Promise<boolean> {
    if (steps.length === 0) return Promise.resolve(true);
    const rows = steps.map((step) => stepToRow(step) as never[]);
    return this.#write(() => {
      if (holder !== undefined && this.#held.get(steps[0]!.runId, holder) === undefined) return false;
      for (const row of rows) this.#addStep.run(...row);
      return true;
    });
  }

  finish(record: RunRecord, from: RunClaim, steps: readonly RunStep[]): Promise<boolean> {
    const values = sqliteReplaceValues(record, from);
    const rows = steps.map((step) => stepToRow(step) as never[]);
    // One apply, so one transaction: the steps and the journal follow the record, or nothing does.
    return this.#write(() => {
      // This very end, written already (an end told twice), is told written, and written once.
      if (Number(this.#replace.run(...values).changes) === 0)
        return (
          this.#endedAs.get(record.id, record.status, record.instance ?? null, values[7] ?? null) !==
          undefined
        );
      for (const row of rows) this.#addStep.run(...row);
      this.#dropJournal.run(record.id);
      return true;
    });
  }

  keepStep(step: RunStep, instance: string): Promise<boolean> {
    const [runId, , ...rest] = stepToRow(step) as never[];
    const values = [runId, runId, ...rest, runId, instance] as never[];
    return this.#write(() => Number(this.#keepStep.run(...values).changes) > 0);
  }

  async runningOn(instance: string): Promise<string[]> {
    this.#flush();
    return (this.#run(() => this.#runningOn.all(instance)) as { id: string }[]).map((row) => row.id);
  }

  journal(entry: JournalEntry, holder: string): Promise<boolean> {
    const messages = JSON.stringify(entry.messages);
    // Writers take turns on the file: the look and the write are one with the takeover's replace.
    return this.#write(() => {
      if (this.#held.get(entry.runId, holder) === undefined) return false;
      this.#addJournal.run(entry.runId, entry.seq, entry.step, messages);
      return true;
    });
  }

  async readJournal(runId: string): Promise<JournalEntry[]> {
    this.#flush();
    return (this.#run(() => this.#journal.all(runId)) as unknown as JournalRow[]).map(journalFromRow);
  }

  dropJournal(runId: string): Promise<void> {
    return this.#write(() => {
      this.#dropJournal.run(runId);
    });
  }

  #write<T>(apply: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ apply, resolve: resolve as (value: unknown) => void, reject });
      this.#flushing ??= setImmediate(() => this.#flush());
    });
  }

  /** Commits the waiting writes in one transaction; if that fails, each is tried alone, so it fails alone. */
  #flush(): void {
    if (this.#flushing) clearImmediate(this.#flushing);
    this.#flushing = undefined;
    if (this.#pending.length === 0) return;
    const writes = this.#pending;
    this.#pending = [];
    try {
      const results = immediately(this.#db, () => writes.map((write) => write.apply()));
      for (const [i, write] of writes.entries()) write.resolve(results[i]);
    } catch {
      for (const write of writes) {
        try {
          write.resolve(this.#run(() => immediately(this.#db, () => write.apply())));
        } catch (error) {
          write.reject(error);
        }
      }
    }
  }

  async steps(runId: string): Promise<RunStep[]> {
    this.#flush();
    return (this.#run(() => this.#steps.all(runId)) as unknown as StepRow[]).map(stepFromRow);
  }

  async step(runId: string, seq: number): Promise<StoredStep | undefined> {
    this.#flush();
    const row = this.#run(() => this.#step.get(runId, seq)) as (StepRow & PayloadRow) | undefined;
    return row && { step: stepFromRow(row), payload: row.payload };
  }

  async usage(query: UsageQuery): Promise<UsageRow[]> {
    this.#flush();
    const { sql, values } = usageSql('sqlite', 'hubos_runs', 'hubos_run_steps', query);
    const rows = this.#run(() =>
      this.#db.prepare(sql).all(...(values as never[])),
    ) as unknown as UsageSqlRow[];
    return rows.map(usageFromRow);
  }

  #run<T>(operation: () => T): T {
    return onSqlite(this.#label, operation);
  }
}

/** The values of the `#replace` statement: `replaceValues`, then the instance again (SQLite has no `$12`). */
function sqliteReplaceValues(record: RunRecord, from: RunClaim): never[] {
  return [...replaceValues(record, from), from.instance ?? null] as never[];
}

interface PendingWrite {
  apply: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}
