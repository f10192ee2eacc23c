/**
 * What a record table files each record under, read from the record itself at every write: who
 * it belongs to, when it last mattered, what kind or state it is in. Each is a column with an
 * index, so a list or a delete by them reads only the rows it names.
 */
export interface RecordIndexes<T> {
  /** Whose the record is (a principal id); undefined: nobody's. */
  owner?: (value: T) => string | undefined;
  /** Its time, in ms since the epoch (when it was last updated, say); without it, when it was written. */
  time?: (value: T) => number;
  /** A short label to select and delete by (its state, say); undefined: none. */
  tag?: (value: T) => string | undefined;
}

/** Which records a list, a count or a delete reads: all of the table's unless narrowed. */
export interface RecordFilter {
  /** Only this owner's. */
  owner?: string | undefined;
  /** Only records with this tag, or with one of these. */
  tag?: string | readonly string[] | undefined;
  /** Only records whose time is this or later (ms). */
  since?: number | undefined;
  /** Only records whose time is before this (ms). */
  before?: number | undefined;
  /** Only records whose key starts with this (checked on the rows the index selects). */
  prefix?: string | undefined;
}

/** Where a page of records starts: after this one, in the page's order. */
export interface RecordCursor {
  time: number;
  key: string;
}

/** Which records to list, in time order, a page at a time. */
export interface RecordQuery extends RecordFilter {
  /** `newest` (the default) or `oldest` first; ties in key order, reversed for newest. */
  order?: 'newest' | 'oldest' | undefined;
  /** At most this many (1 to 1000; default 50). */
  limit?: number | undefined;
  /** After this one: the `next` of the previous page. */
  after?: RecordCursor | undefined;
}

/** One record as listed: its value and what it is filed under. */
export interface RecordEntry<T> {
  key: string;
  value: T;
  owner: string | undefined;
  time: number;
  tag: string | undefined;
}

/** One page of records; `next` is there when more may follow. */
export interface RecordPage<T> {
  entries: RecordEntry<T>[];
  next?: RecordCursor;
}

/**
 * A table of typed records, each under a key, filed by owner, time and tag (see
 * {@link RecordIndexes}). Values are stored as JSON; the type is the caller's word (nothing is
 * checked at run time), so a table should hold one type only.
 */
export interface RecordTable<T> {
  readonly name: string;
  get(key: string): Promise<T | undefined>;
  /** Writes the record, over whatever the key held. */
  put(key: string, value: T): Promise<void>;
  /** Writes `next` only if the key still holds `expected` (undefined: only if absent); true when it wrote. */
  compareAndSet(key: string, expected: T | undefined, next: T): Promise<boolean>;
  /** Writes the records whose keys are absent, in one commit; how many it wrote (an import, say). */
  insertMany(records: readonly { key: string; value: T }[]): Promise<number>;
  /** True when the key was there. */
  delete(key: string): Promise<boolean>;
  /** Deletes these keys in one statement; how many were there. */
  deleteKeys(keys: readonly string[]): Promise<number>;
  /** A page of records in time order, read from the index the filter names. */
  list(query?: RecordQuery): Promise<RecordPage<T>>;
  /** How many records the filter selects (counted on the index, values unread). */
  count(filter?: RecordFilter): Promise<number>;
  /**
   * Deletes at most `limit` (1 to 10000) of the records the filter selects, oldest first (of each
   * tag in turn, when the filter names tags); returns their keys. Call again while it returns
   * `limit` keys.
   */
  deleteWhere(filter: RecordFilter & { limit: number }): Promise<string[]>;
}
