import { readEntries, type Store } from './store.ts';

/** The minute a touch is filed under: touches of one minute overwrite each other. */
const BUCKET_MS = 60_000;
const pad = (ms: number) => String(Math.max(0, Math.floor(ms / BUCKET_MS) * BUCKET_MS)).padStart(15, '0');

/**
 * What a sweep of an idle index did.
 * @internal
 */
export interface IdleSweep {
  /** Entries removed as idle. */
  removed: number;
  /** Index entries read: a full batch means there may be more to look at. */
  read: number;
}

/**
 * When each thing (an A2A task) was last active, as key/value entries kept in time order
 * (`<minute>/<id>`), so finding the idle ones reads the oldest entries only, a batch at a time,
 * never every thing kept. A thing active again is filed again under its new minute; its older
 * entries are left to the sweep, which asks when the thing was really last active.
 * @internal
 */
export class IdleIndex {
  readonly #store: Store;
  readonly #namespace: string;
  /** The minute each thing was last filed under by this process: one write a minute at most. */
  readonly #filed = new Map<string, string>();

  static readonly #shared = new WeakMap<Store, Map<string, IdleIndex>>();

  /** The index of `namespace` in `store`, one per store and namespace, shared by its writers. */
  static of(store: Store, namespace: string): IdleIndex {
    let byNamespace = IdleIndex.#shared.get(store);
    if (!byNamespace) {
      byNamespace = new Map();
      IdleIndex.#shared.set(store, byNamespace);
    }
    let index = byNamespace.get(namespace);
    if (!index) {
      index = new IdleIndex(store, namespace);
      byNamespace.set(namespace, index);
    }
    return index;
  }

  constructor(store: Store, namespace: string) {
    this.#store = store;
    this.#namespace = namespace;
  }

  /** Files `id` as active at `at`. */
  async touch(id: string, at = Date.now()): Promise<void> {
    const minute = pad(at);
    if (this.#filed.get(id) === minute) return;
    await this.#store.set(this.#namespace, `${minute}/${id}`, 1);
    // Forget the oldest past a bound: a process serving many sessions keeps no unbounded map.
    if (this.#filed.size >= 10_000) this.#filed.delete(this.#filed.keys().next().value as string);
    this.#filed.set(id, minute);
  }

  /**
   * Looks at the oldest `limit` entries filed before `cutoff`: a thing whose `lastActive` (ms; undefined
   * when it is gone) is before `cutoff` is removed with `remove`, one active since is filed under
   * that time; each entry looked at is dropped.
   */
  async sweep(
    cutoff: number,
    limit: number,
    lastActive: (id: string) => Promise<number | undefined>,
    remove: (id: string) => Promise<void>,
  ): Promise<IdleSweep> {
    const entries = await readEntries(this.#store, this.#namespace, '', { limit });
    const before = pad(cutoff);
    let removed = 0;
    let read = 0;
    for (const { key } of entries) {
      if (key.slice(0, 15) >= before) break;
      read++;
      const id = key.slice(16);
      const last = await lastActive(id);
      if (last !== undefined && last < cutoff) {
        await remove(id);
        removed++;
      } else if (last !== undefined) {
        // Active since: filed under that minute (written, perhaps, by a HubOS that kept no index).
        await this.#store.set(this.#namespace, `${pad(last)}/${id}`, 1);
      }
      await this.#store.delete(this.#namespace, key);
    }
    return { removed, read };
  }
}
