import type { RecordCursor, RecordFilter } from './record-table.ts';

/** A row of `hubos_records` but its name: the record's JSON and the columns it is filed under. */
export interface RecordRow {
  key: string;
  owner: string | null;
  time: number;
  tag: string | null;
  value: string;
}

/** A list as the rows see it: checked, limit given. */
export interface RowQuery extends RecordFilter {
  order: 'newest' | 'oldest';
  limit: number;
  after?: RecordCursor | undefined;
}

/**
 * The `hubos_records` table of one database (SQLite or PostgreSQL), untyped: what the typed
 * tables of every plugin share. Every write is one statement, so one commit.
 * @internal
 */
export interface RecordRows {
  get(name: string, key: string): Promise<RecordRow | undefined>;
  put(name: string, row: RecordRow): Promise<void>;
  /** Writes `row` only if the key holds `expected` (the JSON text), or is absent when `expected` is undefined. */
  swap(name: string, row: RecordRow, expected: string | undefined): Promise<boolean>;
  insertMany(name: string, rows: readonly RecordRow[]): Promise<number>;
  deleteKeys(name: string, keys: readonly string[]): Promise<number>;
  list(name: string, query: RowQuery): Promise<RecordRow[]>;
  count(name: string, filter: RecordFilter): Promise<number>;
  deleteWhere(name: string, filter: RecordFilter, limit: number): Promise<string[]>;
}

export const RECORD_COLUMNS = 'name, key, owner, time, tag, value';

/**
 * The WHERE clause selecting a filter's rows of table `name`, with `?` placeholders, and its
 * values. Equality on owner or one tag comes first, so the database reads the index that starts
 * with it, in time order; a page's cursor is a row value, which both databases seek to.
 */
export function recordWhere(
  name: string,
  filter: RecordFilter,
  page?: { order: 'newest' | 'oldest'; after?: RecordCursor | undefined },
): { where: string; values: unknown[] } {
  const parts = ['name = ?'];
  const values: unknown[] = [name];
  if (filter.owner !== undefined) {
    parts.push('owner = ?');
    values.push(filter.owner);
  }
  const tags = filter.tag === undefined ? [] : typeof filter.tag === 'string' ? [filter.tag] : filter.tag;
  if (tags.length === 1) {
    parts.push('tag = ?');
    values.push(tags[0]);
  } else if (tags.length > 1) {
    parts.push(`tag IN (${tags.map(() => '?').join(', ')})`);
    values.push(...tags);
  }
  if (filter.since !== undefined) {
    parts.push('time >= ?');
    values.push(filter.since);
  }
  if (filter.before !== undefined) {
    parts.push('time < ?');
    values.push(filter.before);
  }
  if (filter.prefix !== undefined && filter.prefix !== '') {
    parts.push('substr(key, 1, ?) = ?');
    // Both databases count characters (code points), where `length` counts UTF-16 units.
    values.push([...filter.prefix].length, filter.prefix);
  }
  if (page?.after) {
    parts.push(`(time, key) ${page.order === 'newest' ? '<' : '>'} (?, ?)`);
    values.push(page.after.time, page.after.key);
  }
  return { where: parts.join(' AND '), values };
}

/** The ORDER BY of a page: time, then key, as the indexes hold them. */
export const recordOrder = (order: 'newest' | 'oldest'): string =>
  order === 'newest' ? 'time DESC, key DESC' : 'time, key';

/**
 * The order a delete takes rows in: oldest first, of each tag in turn when it names tags, so the
 * tags' index gives the rows in that order (by time alone, the database would rather read the
 * time index through every row of other tags, however many).
 */
export const deleteOrder = (filter: RecordFilter): string =>
  filter.tag === undefined || filter.tag.length === 0 ? 'time' : 'tag, time';
