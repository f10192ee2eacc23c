/** A JSON value as the store keeps it. */
export type StoreValue = null | boolean | number | string | StoreValue[] | { [key: string]: StoreValue };

/** One write of a batch: `value` to set, or `undefined` to delete the key. */
export interface StoreWrite {
  namespace: string;
  key: string;
  value: StoreValue | undefined;
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
