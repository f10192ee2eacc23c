import type { Store } from './store.ts';

/**
 * `make` once per store, its value kept as long as the store is: how a module opens its tables
 * (typed record tables, say) at first use without opening them again at every call.
 * @internal
 */
export function perStore<T>(make: (store: Store) => T): (store: Store) => T {
  const made = new WeakMap<Store, T>();
  return (store) => {
    if (!made.has(store)) made.set(store, make(store));
    return made.get(store) as T;
  };
}
