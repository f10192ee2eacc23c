import { HubosError } from '../errors.ts';
import type { RowQuery } from './record-rows.ts';
import type { RecordCursor, RecordFilter, RecordQuery } from './record-table.ts';

/** Longest key, owner or tag: long enough for a path of ids, short enough for an index. */
const MAX_TEXT = 512; // bytes, in UTF-8
// With the u flag a pair is one code point: only a surrogate standing alone matches.
const LONE_SURROGATE = /\p{Cs}/u;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

const invalid = (table: string, what: string) =>
  new HubosError('RECORD_INVALID', `record table "${table.slice(0, 100)}": ${what}`);

/** A table's name: letters, digits, `.`, `_`, `:`, `-`, starting with a letter or digit, up to 100. */
export function checkName(name: string): string {
  if (typeof name !== 'string' || !NAME.test(name))
    throw invalid(
      String(name),
      'a name is 1 to 100 letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
    );
  return name;
}

/**
 * Whether `text` is a key, an owner, a tag or a prefix a record table takes (see `checkText`).
 * @internal
 */
export function isRecordText(text: unknown): text is string {
  return (
    typeof text === 'string' &&
    text.length > 0 &&
    Buffer.byteLength(text) <= MAX_TEXT &&
    !text.includes('\u0000') &&
    !LONE_SURROGATE.test(text)
  );
}

/**
 * A key, an owner, a tag or a prefix: 1 to 512 bytes of well-formed text without NUL. PostgreSQL
 * refuses a NUL; a lone surrogate would be stored as U+FFFD, one key for two; and the bytes keep an
 * index entry (name, owner or tag, time, key) under PostgreSQL's 2,704.
 */
export function checkText(table: string, what: string, text: unknown): string {
  if (!isRecordText(text))
    throw invalid(
      table,
      `${what} ${JSON.stringify(text)?.slice(0, 80)} is not 1 to ${MAX_TEXT} bytes of text (UTF-8) without NUL or a lone surrogate`,
    );
  return text;
}

/** A time: ms since the epoch, whole (a fraction is dropped). */
export function checkTime(table: string, what: string, time: unknown): number {
  if (typeof time !== 'number' || !Number.isFinite(time) || Math.abs(time) > Number.MAX_SAFE_INTEGER)
    throw invalid(table, `${what} ${String(time)} is not a time in ms (a finite number)`);
  return Math.floor(time);
}

function checkLimit(table: string, limit: unknown, max: number): number {
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > max)
    throw invalid(table, `limit ${String(limit)} is not a whole number from 1 to ${max}`);
  return limit;
}

export function checkFilter(table: string, filter: RecordFilter): RecordFilter {
  const tags =
    filter.tag === undefined ? undefined : typeof filter.tag === 'string' ? [filter.tag] : filter.tag;
  if (tags !== undefined && (!Array.isArray(tags) || tags.length === 0 || tags.length > 100))
    throw invalid(table, 'tag is a string or a list of 1 to 100 strings');
  return {
    owner: filter.owner === undefined ? undefined : checkText(table, 'owner', filter.owner),
    tag: tags?.map((tag) => checkText(table, 'tag', tag)),
    since: filter.since === undefined ? undefined : checkTime(table, 'since', filter.since),
    before: filter.before === undefined ? undefined : checkTime(table, 'before', filter.before),
    prefix:
      filter.prefix === undefined || filter.prefix === ''
        ? undefined
        : checkText(table, 'prefix', filter.prefix),
  };
}

export function checkQuery(table: string, query: RecordQuery): RowQuery {
  const order = query.order ?? 'newest';
  if (order !== 'newest' && order !== 'oldest')
    throw invalid(table, `order ${JSON.stringify(order)} is not "newest" or "oldest"`);
  return {
    ...checkFilter(table, query),
    order,
    limit: checkLimit(table, query.limit ?? 50, 1000),
    after: query.after === undefined ? undefined : checkCursor(table, query.after),
  };
}

function checkCursor(table: string, cursor: RecordCursor): RecordCursor {
  if (typeof cursor !== 'object' || cursor === null)
    throw invalid(table, 'after is not a cursor { time, key }');
  return {
    time: checkTime(table, 'after.time', cursor.time),
    key: checkText(table, 'after.key', cursor.key),
  };
}

export const checkDeleteLimit = (table: string, limit: unknown): number => checkLimit(table, limit, 10_000);

/** A value as the table keeps it: its JSON text (a value JSON cannot hold, such as undefined, is refused). */
export function checkValue(table: string, key: string, value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw invalid(table, `the value of "${key}" is not JSON (${typeof value})`);
  return text;
}
