import { openRecordRows } from '../runs/open-run-table.ts';
import type { JsonShaped } from '../store/collection.ts';
import type { Store, StoreValue } from '../store/store.ts';
import {
  checkDeleteLimit,
  checkFilter,
  checkName,
  checkQuery,
  checkText,
  checkTime,
  checkValue,
} from './record-checks.ts';
import type { RecordRow } from './record-rows.ts';
import type { RecordEntry, RecordIndexes, RecordTable } from './record-table.ts';

/**
 * A typed table of records in `store`'s database (its SQLite file, its PostgreSQL schema, or in
 * memory for the memory store), each filed by the owner, time and tag `indexes` read from it:
 * a plugin lists an owner's records newest first, or deletes old ones of a state, a page or a
 * batch at a time from an index, never reading the others. Every plugin's tables share one
 * database table (`hubos_records`), told apart by `name`; one name should hold one type, read with
 * the same indexes everywhere (they are read at each write: records written before a change keep
 * what they were filed under until written again).
 *
 * A bad name, key, index value or query throws RECORD_INVALID (400) saying which and why.
 *
 * @example
 * ```ts
 * interface Note { owner: string; text: string; state: 'draft' | 'sent'; updatedAt: number }
 * const notes = recordTable<Note>(kernel.store, 'notes', {
 *   owner: (note) => note.owner,
 *   time: (note) => note.updatedAt,
 *   tag: (note) => note.state,
 * });
 * await notes.put('n1', { owner: 'ada', text: 'hello', state: 'draft', updatedAt: Date.now() });
 * const page = await notes.list({ owner: 'ada', limit: 20 }); // newest first; page.next for more
 * // Retention: sent notes older than a month, a batch at a time.
 * const gone = await notes.deleteWhere({ tag: 'sent', before: Date.now() - 30 * 86_400_000, limit: 500 });
 * ```
 */
export function recordTable<T extends JsonShaped<T> = StoreValue>(
  store: Store,
  name: string,
  indexes: RecordIndexes<T> = {},
): RecordTable<T> {
  checkName(name);
  // Opened at the first use, once per store (its migrations make the table); an open that failed
  // (a database away) is tried again at the next use.
  const rows = () => openRecordRows(store);
  const key = (k: string) => checkText(name, 'key', k);
  const rowOf = (k: string, value: T): RecordRow => {
    key(k);
    const text = checkValue(name, k, value);
    const owner = indexes.owner?.(value);
    const tag = indexes.tag?.(value);
    return {
      key: k,
      owner: owner === undefined ? null : checkText(name, `owner of "${k}"`, owner),
      time: checkTime(name, `time of "${k}"`, indexes.time ? indexes.time(value) : Date.now()),
      tag: tag === undefined ? null : checkText(name, `tag of "${k}"`, tag),
      value: text,
    };
  };
  const entryOf = (row: RecordRow): RecordEntry<T> => ({
    key: row.key,
    value: JSON.parse(row.value) as T,
    owner: row.owner ?? undefined,
    time: row.time,
    tag: row.tag ?? undefined,
  });
  return {
    name,
    async get(k) {
      const row = await (await rows()).get(name, key(k));
      return row && (JSON.parse(row.value) as T);
    },
    async put(k, value) {
      await (await rows()).put(name, rowOf(k, value));
    },
    async compareAndSet(k, expected, next) {
      return (await rows()).swap(
        name,
        rowOf(k, next),
        expected === undefined ? undefined : checkValue(name, k, expected),
      );
    },
    async insertMany(records) {
      return (await rows()).insertMany(
        name,
        records.map((record) => rowOf(record.key, record.value)),
      );
    },
    async delete(k) {
      return (await (await rows()).deleteKeys(name, [key(k)])) > 0;
    },
    async deleteKeys(keys) {
      return (await rows()).deleteKeys(name, keys.map(key));
    },
    async list(query = {}) {
      const checked = checkQuery(name, query);
      const found = (await (await rows()).list(name, checked)).map(entryOf);
      const last = found.at(-1);
      return {
        entries: found,
        ...(last && found.length === checked.limit ? { next: { time: last.time, key: last.key } } : {}),
      };
    },
    async count(filter = {}) {
      return (await rows()).count(name, checkFilter(name, filter));
    },
    async deleteWhere(filter) {
      const limit = checkDeleteLimit(name, filter.limit);
      return (await rows()).deleteWhere(name, checkFilter(name, filter), limit);
    },
  };
}
