import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { onSqlite } from '../db/sqlite-failure.ts';
import { immediately } from '../db/sqlite-transaction.ts';
import {
  deleteOrder,
  RECORD_COLUMNS,
  type RecordRow,
  type RecordRows,
  type RowQuery,
  recordOrder,
  recordWhere,
} from './record-rows.ts';
import type { RecordFilter } from './record-table.ts';

/** `hubos_records` in a SQLite file (or in memory): each write one statement, so one commit. */
export class SqliteRecordRows implements RecordRows {
  readonly #db: DatabaseSync;
  readonly #label: string;
  readonly #get: StatementSync;
  readonly #put: StatementSync;
  readonly #insert: StatementSync;
  readonly #swap: StatementSync;
  readonly #delete: StatementSync;
  /** Statements of lists and deletes, by their SQL: a plugin asks the same few again and again. */
  readonly #prepared = new Map<string, StatementSync>();

  constructor(db: DatabaseSync, label: string) {
    this.#db = db;
    this.#label = label;
    this.#get = db.prepare(
      'SELECT key, owner, time, tag, value FROM hubos_records WHERE name = ? AND key = ?',
    );
    this.#put = db.prepare(
      `INSERT INTO hubos_records (${RECORD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (name, key) DO UPDATE SET owner = excluded.owner, time = excluded.time,
         tag = excluded.tag, value = excluded.value`,
    );
    this.#insert = db.prepare(
      `INSERT INTO hubos_records (${RECORD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name, key) DO NOTHING`,
    );
    this.#swap = db.prepare(
      `UPDATE hubos_records SET owner = ?, time = ?, tag = ?, value = ?
       WHERE name = ? AND key = ? AND value = ?`,
    );
    this.#delete = db.prepare('DELETE FROM hubos_records WHERE name = ? AND key = ?');
  }

  async get(name: string, key: string): Promise<RecordRow | undefined> {
    return this.#run(() => this.#get.get(name, key)) as RecordRow | undefined;
  }

  async put(name: string, row: RecordRow): Promise<void> {
    this.#run(() => this.#put.run(...values(name, row)));
  }

  async swap(name: string, row: RecordRow, expected: string | undefined): Promise<boolean> {
    const result = this.#run(() =>
      expected === undefined
        ? this.#insert.run(...values(name, row))
        : this.#swap.run(row.owner, row.time, row.tag, row.value, name, row.key, expected),
    );
    return Number(result.changes) > 0;
  }

  async insertMany(name: string, rows: readonly RecordRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    return this.#run(() =>
      immediately(this.#db, () =>
        rows.reduce((written, row) => written + Number(this.#insert.run(...values(name, row)).changes), 0),
      ),
    );
  }

  async deleteKeys(name: string, keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0;
    return this.#run(() =>
      immediately(this.#db, () =>
        keys.reduce((deleted, key) => deleted + Number(this.#delete.run(name, key).changes), 0),
      ),
    );
  }

  async list(name: string, query: RowQuery): Promise<RecordRow[]> {
    const { where, values } = recordWhere(name, query, query);
    const sql = `SELECT key, owner, time, tag, value FROM hubos_records WHERE ${where}
      ORDER BY ${recordOrder(query.order)} LIMIT ?`;
    return this.#run(() =>
      this.#statement(sql).all(...(values as never[]), query.limit),
    ) as unknown as RecordRow[];
  }

  async count(name: string, filter: RecordFilter): Promise<number> {
    const { where, values } = recordWhere(name, filter);
    const row = this.#run(() =>
      this.#statement(`SELECT count(*) AS n FROM hubos_records WHERE ${where}`).get(...(values as never[])),
    ) as { n: number };
    return Number(row.n);
  }

  async deleteWhere(name: string, filter: RecordFilter, limit: number): Promise<string[]> {
    const { where, values } = recordWhere(name, filter);
    const sql = `DELETE FROM hubos_records WHERE rowid IN (
        SELECT rowid FROM hubos_records WHERE ${where} ORDER BY ${deleteOrder(filter)} LIMIT ?) RETURNING key`;
    const rows = this.#run(() => this.#statement(sql).all(...(values as never[]), limit)) as {
      key: string;
    }[];
    return rows.map((row) => row.key);
  }

  #statement(sql: string): StatementSync {
    let statement = this.#prepared.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#prepared.set(sql, statement);
    }
    return statement;
  }

  #run<T>(operation: () => T): T {
    return onSqlite(this.#label, operation);
  }
}

const values = (name: string, row: RecordRow): never[] =>
  [name, row.key, row.owner, row.time, row.tag, row.value] as never[];
