import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { collection, type StoreCollection } from './store/collection.ts';
import type { Store } from './store/store.ts';

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
  readonly #beats: StoreCollection<Heartbeat>;
  readonly #startedAt = new Date().toISOString();
  #timer: NodeJS.Timeout | undefined;
  #beat: Promise<void> | undefined;
  /** When the last heartbeat of this instance landed. */
  #landedAt: number | undefined;
  /**
   * Since when this instance's heartbeats have been landing on time, one after another (undefined:
   * they are not). Only after a whole lease of that does it judge another's expired heartbeat.
   */
  #healthySince: number | undefined;

  constructor(store: Store, leaseMs: number) {
    this.#beats = collection<Heartbeat>(store, INSTANCES_NAMESPACE);
    this.leaseMs = leaseMs;
  }

  get #every(): number {
    return Math.max(250, Math.floor(this.leaseMs / 3));
  }

  /** Writes the first heartbeat, then keeps it fresh until stop(). */
  async start(): Promise<void> {
    if (this.#timer) return;
    await this.#heartbeat();
    this.#timer = setInterval(() => {
      // One at a time: a heartbeat held up by a store outage is not joined by others.
      this.#beat ??= this.#heartbeat()
        .catch(() => {
          this.#healthySince = undefined;
        })
        .finally(() => {
          this.#beat = undefined;
        });
    }, this.#every);
    this.#timer.unref();
  }

  /** Stops the heartbeat and removes it: what this instance ran has ended or been handed back. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#beat;
    await this.#beats.delete(this.id).catch(() => undefined);
  }

  /**
   * Whether the instance `id` may still be running: its heartbeat is there and has not expired
   * (this one always is). An expired heartbeat is believed only while this instance's own have
   * been landing on time for a whole lease: after a store outage nobody could renew, so every
   * instance gets a lease to write a fresh one first.
   */
  async isAlive(id: string): Promise<boolean> {
    if (id === this.id) return true;
    const beat = await this.#beats.get(id);
    if (beat === undefined) return false;
    // On this host a process that is gone is dead at once: a restarted single instance need not
    // wait for the lease to mark what the crashed one was running.
    if (beat.host === hostname() && !processExists(beat.pid)) return false;
    if (beat.expiresAt > Date.now()) return true;
    return !this.#judging();
  }

  #judging(): boolean {
    const now = Date.now();
    const since = this.#healthySince;
    const landed = this.#landedAt;
    return (
      since !== undefined &&
      landed !== undefined &&
      now - since >= this.leaseMs &&
      now - landed < this.leaseMs
    );
  }

  async #heartbeat(again = true): Promise<void> {
    const sent = Date.now();
    const beat: Heartbeat = {
      id: this.id,
      host: hostname(),
      pid: process.pid,
      startedAt: this.#startedAt,
      expiresAt: sent + this.leaseMs,
    };
    await this.#beats.set(this.id, beat);
    const now = Date.now();
    // Late (the store was slow or away), or after a gap: the streak of on-time heartbeats restarts.
    const onTime =
      now - sent < this.#every && (this.#landedAt === undefined || now - this.#landedAt < this.leaseMs);
    if (!onTime) this.#healthySince = undefined;
    this.#healthySince ??= now;
    this.#landedAt = now;
    // A heartbeat that landed late carries an expiry that is already near: write a fresh one now.
    if (!onTime && again && this.#timer) await this.#heartbeat(false);
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
