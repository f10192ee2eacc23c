/** A JSON value as the store keeps it. */
export type StoreValue = null | boolean | number | string | StoreValue[] | { [key: string]: StoreValue };

/** One write of a batch: `value` to set, or `undefined` to delete the key. */
export interface StoreWrite {
  namespace: string;
  key: string;
  value: StoreValue | undefined;
}

/** One entry of a namespace, as `entries` reads it. */
export interface StoreEntry<T = StoreValue> {
  key: string;
  value: T;
}

/** Which of a prefix's entries `entries` reads. */
export interface EntriesOptions {
  /**
   * Only the keys whose rest after the prefix does not contain it: with `/`, prefix `a/` reads
   * `a/1` but not `a/b/1`, as a folder lists its files but not those of its subfolders.
   */
  delimiter?: string;
  /** At most this many entries (an integer, 0 or more): the first in key order, or with `fromEnd` the last. */
  limit?: number;
  /** With `limit`: the last entries in key order rather than the first, still returned in key order. */
  fromEnd?: boolean;
}

/**
 * Durable key/value storage shared by the runtime and plugins. Keys live in namespaces
 * (`sessions`, `tasks`, `plugin:<name>`...) so owners never collide.
 */
export interface Store {
  get<T extends StoreValue = StoreValue>(namespace: string, key: string): Promise<T | undefined>;
  set(namespace: string, key: string, value: StoreValue): Promise<void>;
  delete(namespace: string, key: string): Promise<boolean>;
  /** Keys of a namespace, in key order, optionally only those starting with `prefix`. */
  list(namespace: string, prefix?: string): Promise<string[]>;
  /**
   * The entries of a namespace whose keys start with `prefix`, in key order, read in one statement
   * (the limit applied there too). Optional for a store of one's own: `readEntries` falls back to
   * `list` and one `get` per key.
   */
  entries?(namespace: string, prefix?: string, options?: EntriesOptions): Promise<StoreEntry[]>;
  /**
   * The namespaces holding at least one key, those starting with `prefix` only, in any order.
   * Optional for a store of one's own: what is kept under namespaces named by data (the sessions
   * of agents since removed from the config) is then only found by name.
   */
  namespaces?(prefix?: string): Promise<string[]>;
  /**
   * Writes `next` only if the key still holds `expected` (`undefined`: only if it is absent), in
   * one atomic step across every process sharing the store; true when it wrote. `expected` is
   * compared as JSON text, so pass the value as `get` returned it. Leases and claims build on it.
   */
  compareAndSet(
    namespace: string,
    key: string,
    expected: StoreValue | undefined,
    next: StoreValue,
  ): Promise<boolean>;
  /**
   * Commits several writes as one, in order (a key written twice ends as the last write says): all
   * of them or none, in one commit or statement. Optional for a store of one's own: `writeAll`
   * falls back to one write at a time.
   */
  batch?(writes: readonly StoreWrite[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Writes together where the store can (`batch`: one commit, all or none), else one at a time in
 * order, each awaited: a failure then leaves the earlier writes done and the later ones not.
 */
export async function writeAll(store: Store, writes: readonly StoreWrite[]): Promise<void> {
  if (store.batch) return store.batch(writes);
  for (const { namespace, key, value } of writes)
    await (value === undefined ? store.delete(namespace, key) : store.set(namespace, key, value));
}

/**
 * Reads a prefix's entries in one statement where the store can (`entries`), else lists the keys
 * and reads each (a key deleted in between is left out).
 */
export async function readEntries(
  store: Store,
  namespace: string,
  prefix = '',
  options: EntriesOptions = {},
): Promise<StoreEntry[]> {
  checkEntriesOptions(options);
  if (store.entries) return store.entries(namespace, prefix, options);
  const keys = selectKeys(await store.list(namespace, prefix), prefix, options);
  const values = await Promise.all(keys.map((key) => store.get(namespace, key)));
  const found: StoreEntry[] = [];
  keys.forEach((key, i) => {
    const value = values[i];
    if (value !== undefined) found.push({ key, value });
  });
  return found;
}

/**
 * The keys (all starting with `prefix`, in key order) that `options` selects: for stores that
 * filter in memory.
 * @internal
 */
export function selectKeys(keys: string[], prefix: string, options: EntriesOptions): string[] {
  const { delimiter, limit, fromEnd } = options;
  const kept = delimiter ? keys.filter((key) => !key.slice(prefix.length).includes(delimiter)) : keys;
  if (limit === undefined) return kept;
  return fromEnd ? kept.slice(Math.max(0, kept.length - limit)) : kept.slice(0, limit);
}

/**
 * Refuses a limit that is not a count, so no store reads everything (or nothing) by mistake.
 * @internal
 */
export function checkEntriesOptions(options: EntriesOptions): void {
  const { limit } = options;
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0))
    throw new RangeError(`entries: limit must be an integer, 0 or more (got ${String(limit)})`);
}
