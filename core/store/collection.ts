import {
  type EntriesOptions,
  readEntries,
  type Store,
  type StoreEntry,
  type StoreValue,
  type StoreWrite,
} from './store.ts';

/**
 * `T` where every part of it is JSON: strings, numbers, booleans, null, arrays and objects,
 * interfaces included (they need no index signature). A function, a `Date`, a `Map`, a bigint
 * anywhere in it makes it fail, as JSON would not bring it back. A part typed `unknown` is taken
 * as it is: what it holds is the writer's business. Optional properties are fine (JSON drops an
 * `undefined`).
 */
export type JsonShaped<T> = { [K in keyof T]: JsonPart<T[K]> };

/** One part of a JsonShaped type: itself when JSON, `never` when not. */
export type JsonPart<T> = unknown extends T
  ? T
  : T extends StoreValue // Checked first: what already is one needs no walk (and StoreValue is recursive).
    ? T
    : T extends string | number | boolean | null | undefined
      ? T
      : T extends (...args: never[]) => unknown
        ? never
        : T extends object
          ? { [K in keyof T]: JsonPart<T[K]> }
          : never;

/**
 * `value` as a StoreValue, for what takes one (the bus, the Store's own methods): checked when
 * compiled to be JSON-shaped, where a cast would take anything.
 */
export function storeValue<T extends JsonShaped<T>>(value: T): StoreValue {
  return value as unknown as StoreValue;
}

/**
 * One namespace of a store, typed: what a plugin keeps there is its own interface, read back as
 * that type. Values are stored as JSON, as the store stores any value; the type is the caller's
 * word (nothing is checked at run time), so a namespace should hold one type only.
 */
export interface StoreCollection<T> {
  readonly store: Store;
  readonly namespace: string;
  get(key: string): Promise<T | undefined>;
  set(key: string, value: T): Promise<void>;
  /** True when the key was there. */
  delete(key: string): Promise<boolean>;
  /** Keys in key order, optionally only those starting with `prefix`. */
  keys(prefix?: string): Promise<string[]>;
  /** Entries in key order, optionally only those starting with `prefix`: one statement where the store can. */
  entries(prefix?: string, options?: EntriesOptions): Promise<StoreEntry<T>[]>;
  /** Writes `next` only if the key still holds `expected` (undefined: only if absent); see `Store.compareAndSet`. */
  compareAndSet(key: string, expected: T | undefined, next: T): Promise<boolean>;
  /** A write of this namespace for `writeAll`: `value`, or undefined to delete the key. */
  write(key: string, value: T | undefined): StoreWrite;
}

/**
 * A typed view of `namespace` in `store`. A function, not a method of Store, so a store of one's
 * own implements nothing more to get it, and any store (one passed to a test, too) has it.
 *
 * @example
 * ```ts
 * interface Note { owner: string; text: string }
 * const notes = collection<Note>(kernel.store, 'notes');
 * await notes.set('n1', { owner: 'ada', text: 'hello' });
 * const note = await notes.get('n1'); // Note | undefined
 * ```
 */
export function collection<T extends JsonShaped<T> = StoreValue>(
  store: Store,
  namespace: string,
): StoreCollection<T> {
  // T is JSON by its constraint: the cast only tells TypeScript so, once, here.
  const json = (value: T) => value as unknown as StoreValue;
  return {
    store,
    namespace,
    get: (key) => store.get(namespace, key) as Promise<T | undefined>,
    set: (key, value) => store.set(namespace, key, json(value)),
    delete: (key) => store.delete(namespace, key),
    keys: (prefix) => store.list(namespace, prefix),
    entries: (prefix, options) => readEntries(store, namespace, prefix, options) as Promise<StoreEntry<T>[]>,
    compareAndSet: (key, expected, next) =>
      store.compareAndSet(namespace, key, expected === undefined ? undefined : json(expected), json(next)),
    write: (key, value) => ({ namespace, key, value: value === undefined ? undefined : json(value) }),
  };
}
