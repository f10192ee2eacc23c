import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Store, StoreValue } from './store/store.ts';

/** Where each live instance keeps its heartbeat: key the instance id. */
export const INSTANCES_NAMESPACE = 'hubos:instances';

interface Heartbeat {
  id: string;
  host: string;
  pid: number;
  startedAt: string;
  expiresAt: number;
}

/**
 * This process as one instance of a service sharing a store: an id, and a heartbeat in the store
 * renewed every third of the lease. Another instance whose heartbeat has expired is dead, and
 * what it was running (runs, workflow runs) is given up or taken over. Store-based, so it holds
 * for processes sharing one SQLite file as for instances on PostgreSQL.
 */
export class Instance {
  readonly id = `${hostname().slice(0, 32)}-${process.pid}-${randomBytes(3).toString('hex')}`;
  readonly leaseMs: number;
  readonly #store: Store;
  readonly #startedAt = new Date().toISOString();
  #timer: NodeJS.Timeout | undefined;
  #beat: Promise<void> = Promise.resolve();
  /** Since when this instance's own heartbeats have been landing (undefined: they are not). */
  #healthySince: number | undefined;

  constructor(store: Store, leaseMs: number) {
    this.#store = store;
    this.leaseMs = leaseMs;
  }

  /** Writes the first heartbeat, then keeps it fresh until stop(). */
  async start(): Promise<void> {
    if (this.#timer) return;
    await this.#heartbeat();
    this.#timer = setInterval(
      () => {
        // A heartbeat that fails (the store restarting) is tried again at the next tick; until
        // one lands again, and for a lease after, others' expired heartbeats are not trusted.
        this.#beat = this.#heartbeat().catch(() => {
          this.#healthySince = undefined;
        });
      },
      Math.max(250, Math.floor(this.leaseMs / 3)),
    );
    this.#timer.unref();
  }

  /** Stops the heartbeat and removes it: what this instance ran has ended or been handed back. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#beat;
    await this.#store.delete(INSTANCES_NAMESPACE, this.id).catch(() => undefined);
  }

  /**
   * Whether the instance `id` may still be running: its heartbeat is there and has not expired
   * (this one always is). A heartbeat that expired while this instance's own could not be written
   * either (the store was away, so nobody could renew) is given a lease to come back first.
   */
  async isAlive(id: string): Promise<boolean> {
    if (id === this.id) return true;
    const beat = (await this.#store.get(INSTANCES_NAMESPACE, id)) as Heartbeat | undefined;
    if (beat === undefined) return false;
    // On this host a process that is gone is dead at once: a restarted single instance need not
    // wait for the lease to mark what the crashed one was running.
    if (beat.host === hostname() && !processExists(beat.pid)) return false;
    if (beat.expiresAt > Date.now()) return true;
    const since = this.#healthySince;
    return since === undefined || Date.now() - since < this.leaseMs;
  }

  async #heartbeat(): Promise<void> {
    const beat: Heartbeat = {
      id: this.id,
      host: hostname(),
      pid: process.pid,
      startedAt: this.#startedAt,
      expiresAt: Date.now() + this.leaseMs,
    };
    await this.#store.set(INSTANCES_NAMESPACE, this.id, beat as unknown as StoreValue);
    this.#healthySince ??= Date.now();
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
