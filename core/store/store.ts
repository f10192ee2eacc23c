/** A JSON value as the store keeps it. */
export type StoreValue = null | boolean | number | string | StoreValue[] | { [key: string]: StoreValue };

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
  close(): Promise<void>;
}
