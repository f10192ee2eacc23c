import { randomUUID } from 'node:crypto';
import {
  collection,
  HubosError,
  type JsonShaped,
  type Store,
  type StoreValue,
  storeValue,
} from '../../core/index.ts';

/** Who holds a lock and until when; `holder: ''` is a released lock, with what its holder left. */
interface Lease<D> {
  holder: string;
  expiresAt: number;
  data?: D;
}

export interface StoreLockOptions {
  /** How long a holder keeps it: past that, a lock whose holder died is taken over. */
  ttlMs: number;
  /** How long to wait for it before failing (longer than ttlMs, so a dead holder's lock is always reached). */
  waitMs: number;
}

/** What the work sees while it holds the lock; `D` is what holders leave each other. */
export interface Held<D = StoreValue> {
  /**
   * What the last holder left on release, written back on this one's: undefined when none was
   * left, or when the last holder died holding the lock (what it was changing may be half done).
   */
  data: D | undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` holding a lease on one store key, taken with `compareAndSet`, so it is exclusive
 * across every process sharing the store. Released by writing a free lease, not by deleting: a
 * delete is not conditional and could remove a lease another holder took over after this one expired.
 */
export async function withStoreLock<T, D extends JsonShaped<D> = StoreValue>(
  store: Store,
  namespace: string,
  key: string,
  options: StoreLockOptions,
  work: (held: Held<D>) => Promise<T>,
): Promise<T> {
  const leases = collection<Lease<StoreValue>>(store, namespace);
  const mine: Lease<StoreValue> = { holder: randomUUID(), expiresAt: 0 };
  const held: Held<D> = { data: undefined };
  const deadline = Date.now() + options.waitMs;
  for (let attempt = 0; ; attempt++) {
    const lease = await leases.get(key);
    // Ours already: a compareAndSet that wrote just before its connection dropped answers false.
    if (lease?.holder === mine.holder) break;
    if (lease === undefined || lease.expiresAt <= Date.now()) {
      mine.expiresAt = Date.now() + options.ttlMs;
      // Every holder of this lock leaves a D: what the last one left is one.
      held.data = lease?.holder === '' ? (lease.data as D | undefined) : undefined;
      if (await leases.compareAndSet(key, lease, mine)) break;
      continue;
    }
    if (Date.now() >= deadline)
      throw new HubosError(
        'STORE_FAILED',
        `the lock ${namespace}/${key} stayed held for ${options.waitMs} ms: is the store overloaded?`,
      );
    // Random, growing waits: contenders on several instances do not retry in step.
    await sleep(Math.min(5 * 2 ** Math.min(attempt, 4), 50) + Math.random() * 10);
  }
  try {
    return await work(held);
  } finally {
    const { data } = held;
    const free: Lease<StoreValue> = {
      holder: '',
      expiresAt: 0,
      ...(data !== undefined ? { data: storeValue(data) } : {}),
    };
    await leases.compareAndSet(key, mine, free).catch(() => false);
  }
}
