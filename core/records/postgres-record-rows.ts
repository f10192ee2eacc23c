import { numbered } from '../db/postgres-placeholders.ts';
import type { PostgresQuery } from '../runs/postgres-run-table.ts';
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

/** A row as PostgreSQL returns it: a bigint comes back as a string. */
const asRow = (row: RecordRow): RecordRow => ({ ...row, time: Number(row.time) });

/** `hubos_records` on PostgreSQL: every write one statement, a compare-and-set one conditional write. */
export class PostgresRecordRows implements RecordRows {
  readonly #query: PostgresQuery;
  readonly #table: string;

  constructor(query: PostgresQuery, schema: string) {
    this.#query = query;
    this.#table = `"${schema.replaceAll('"', '""')}".hubos_records`;
  }

  async get(name: string, key: string): Promise<RecordRow | undefined> {
    const { rows } = await this.#query<RecordRow>(
      `SELECT key, owner, time, tag, value FROM ${this.#table} WHERE name = $1 AND key = $2`,
      [name, key],
    );
    return rows[0] && asRow(rows[0]);
  }

  async put(name: string, row: RecordRow): Promise<void> {
    await this.#query(
      `INSERT INTO ${this.#table} (${RECORD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (name, key) DO UPDATE SET owner = excluded.owner, time = excluded.time,
         tag = excluded.tag, value = excluded.value`,
      values(name, row),
    );
  }

  async swap(name: string, row: RecordRow, expected: string | undefined): Promise<boolean> {
    const { rowCount } =
      expected === undefined
        ? await this.#query(
            `INSERT INTO ${this.#table} (${RECORD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (name, key) DO NOTHING`,
            values(name, row),
          )
        : await this.#query(
            `UPDATE ${this.#table} SET owner = $1, time = $2, tag = $3, value = $4
             WHERE name = $5 AND key = $6 AND value = $7`,
            [row.owner, row.time, row.tag, row.value, name, row.key, expected],
          );
    return (rowCount ?? 0) > 0;
  }

  async insertMany(name: string, rows: readonly RecordRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    // One statement whatever the number: a column of each, unnested into rows.
    const { rowCount } = await this.#query(
      `INSERT INTO ${this.#table} (${RECORD_COLUMNS})
       SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[])
       ON CONFLICT (name, key) DO NOTHING`,
      [
        name,
        rows.map((row) => row.key),
        rows.map((row) => row.owner),
        rows.map((row) => row.time),
        rows.map((row) => row.tag),
        rows.map((row) => row.value),
      ],
    );
    return rowCount ?? 0;
  }

  async deleteKeys(name: string, keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const { rowCount } = await this.#query(
      `DELETE FROM ${this.#table} WHERE name = $1 AND key = ANY($2::text[])`,
      [name, keys],
    );
    return rowCount ?? 0;
  }

  async list(name: string, query: RowQuery): Promise<RecordRow[]> {
    const { where, values } = recordWhere(name, query, query);
    const { rows } = await this.#query<RecordRow>(
      `SELECT key, owner, time, tag, value FROM ${this.#table} WHERE ${numbered(where)}
       ORDER BY ${recordOrder(query.order)} LIMIT $${values.length + 1}`,
      [...values, query.limit],
    );
    return rows.map(asRow);
  }

  async count(name: string, filter: RecordFilter): Promise<number> {
    const { where, values } = recordWhere(name, filter);
    const { rows } = await this.#query<{ n: string }>(
      `SELECT count(*) AS n FROM ${this.#table} WHERE ${numbered(where)}`,
      values,
    );
    return Number(rows[0]?.n ?? 0);
  }

  async deleteWhere(name: string, filter: RecordFilter, limit: number): Promise<string[]> {
    const { where, values } = recordWhere(name, filter);
    const { rows } = await this.#query<{ key: string }>(
      `DELETE FROM ${this.#table} WHERE (name, key) IN (
         SELECT name, key FROM ${this.#table} WHERE ${numbered(where)} ORDER BY ${deleteOrder(filter)} LIMIT $${values.length + 1})
       RETURNING key`,
      [...values, limit],
    );
    return rows.map((row) => row.key);
  }
}

const values = (name: string, row: RecordRow): unknown[] => [
  name,
  row.key,
  row.owner,
  row.time,
  row.tag,
  row.value,
];
