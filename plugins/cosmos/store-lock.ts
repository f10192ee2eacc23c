import { randomUUID } from 'node:crypto';
import { HubosError, type Store, type StoreValue } from '../../core/index.ts';

/** Who holds a lock and until when; `holder: ''` is a released lock, with what its holder left. */
interface Lease {
  holder: string;
  expiresAt: number;
  data?: StoreValue;
}

export interface StoreLockOptions {
  /** How long a holder keeps it: past that, a lock whose holder died is taken over. */
  ttlMs: number;
  /** How long to wait for it before failing (longer than ttlMs, so a dead holder's lock is always reached). */
  waitMs: number;
}

/** What the work sees while it holds the lock. */
export interface Held {
  /**
   * What the last holder left on release, written back on this one's: undefined when none was
   * left, or when the last holder died holding the lock (what it was changing may be half done).
   */
  data: StoreValue | undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` holding a lease on one store key, taken with `compareAndSet`, so it is exclusive
 * across every process sharing the store. Released by writing a free lease, not by deleting: a
 * delete is not conditional and could remove a lease another holder took over after this one expired.
 */
export async function withStoreLock<T>(
  store: Store,
  namespace: string,
  key: string,
  options: StoreLockOptions,
  work: (held: Held) => Promise<T>,
): Promise<T> {
  const mine: Lease = { holder: randomUUID(), expiresAt: 0 };
  const held: Held = { data: undefined };
  const deadline = Date.now() + options.waitMs;
  for (let attempt = 0; ; attempt++) {
    const current = await store.get<StoreValue>(namespace, key);
    const lease = current as unknown as Lease | undefined;
    // Ours already: a compareAndSet that wrote just before its connection dropped answers false.
    if (lease?.holder === mine.holder) break;
    if (lease === undefined || lease.expiresAt <= Date.now()) {
      mine.expiresAt = Date.now() + options.ttlMs;
      held.data = lease?.holder === '' ? lease.data : undefined;
      if (await store.compareAndSet(namespace, key, current, mine as unknown as StoreValue)) break;
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
    const free: Lease = { holder: '', expiresAt: 0, ...(held.data !== undefined ? { data: held.data } : {}) };
    await store
      .compareAndSet(namespace, key, mine as unknown as StoreValue, free as unknown as StoreValue)
      .catch(() => false);
  }
}
