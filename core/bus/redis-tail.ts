import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { compareLogIds } from './log-id.ts';
import { quiet } from './redis-connect.ts';
import { decodeEntries, type ReadEntry, type StreamReply } from './redis-stream.ts';

/** Each XREAD blocks at most this long, then it is sent again (a safety net, not a poll). */
const BLOCK_MS = 30_000;
/** Entries read per stream per round trip. */
const PAGE = 500;
/** How long the wake stream outlives its last use (it is this instance's own). */
const WAKE_TTL_MS = 3_600_000;
/** A pause after a failed read, so an outage is not a busy loop (ioredis reconnects meanwhile). */
const RETRY_MS = 250;

/** A follower's hold on a stream in the read. */
export interface TailFollower {
  /**
   * The entries after `after` once the reader has them; undefined when the reader is already past
   * `after` (entries went by while the follower was busy: it reads them itself), or on close/abort.
   */
  next(after: string, signal: AbortSignal): Promise<ReadEntry[] | undefined>;
  leave(): void;
}

interface Waiter {
  after: string;
  resolve: (entries: ReadEntry[] | undefined) => void;
}

interface Tailed {
  /** The id the next read starts after: the last entry read of this stream. */
  last: string;
  followers: number;
  waiters: Set<Waiter>;
}

/**
 * The one reader of an instance's followed logs: one connection, one blocking XREAD over every
 * stream followed here (and a wake stream of its own), sent again as soon as it answers. What it
 * reads goes to every follower waiting on that stream. A follower that joins a stream not yet in
 * the read wakes it (an entry on the wake stream), so the next XREAD includes it; one that leaves
 * is dropped from the next. N followers, on any number of runs, hold this one connection.
 */
export class RedisTail {
  readonly #main: Redis;
  readonly #wakeKey: string;
  readonly #streams = new Map<string, Tailed>();
  #reader: Redis | undefined;
  #wakeLast = '0-0';
  /** A read is out (its keys are fixed until it answers). */
  #reading = false;
  /** The read out was woken already: one wake is enough. */
  #woken = false;
  #idle: (() => void) | undefined;
  #closed = false;

  constructor(main: Redis, prefix: string) {
    this.#main = main;
    this.#wakeKey = `${prefix}:tail:${randomBytes(8).toString('hex')}`;
  }

  /** Holds `key` in the read until the returned leave is called. */
  join(key: string, after: string): TailFollower {
    let tailed = this.#streams.get(key);
    if (!tailed) {
      tailed = { last: after, followers: 0, waiters: new Set() };
      this.#streams.set(key, tailed);
      this.#changed();
    }
    tailed.followers++;
    const own = tailed;
    let left = false;
    return {
      next: (cursor, signal) => this.#next(own, cursor, signal),
      leave: () => {
        if (left) return;
        left = true;
        // Dropped from the next read; the one out may still answer for it, and is ignored then.
        if (--own.followers === 0 && this.#streams.get(key) === own) this.#streams.delete(key);
      },
    };
  }

  #next(tailed: Tailed, after: string, signal: AbortSignal): Promise<ReadEntry[] | undefined> {
    if (this.#closed || signal.aborted || compareLogIds(after, tailed.last) < 0)
      return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        after,
        resolve: (entries) => {
          signal.removeEventListener('abort', onAbort);
          tailed.waiters.delete(waiter);
          resolve(entries);
        },
      };
      const onAbort = () => waiter.resolve(undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      tailed.waiters.add(waiter);
    });
  }

  close(): void {
    this.#closed = true;
    this.#idle?.();
    for (const tailed of this.#streams.values())
      for (const waiter of tailed.waiters) waiter.resolve(undefined);
    this.#streams.clear();
    this.#reader?.disconnect();
  }

  #changed(): void {
    if (this.#closed) return;
    if (!this.#reader) {
      // Not auto-pipelined as the main connection is: it sends one blocking XREAD at a time.
      this.#reader = quiet(this.#main.duplicate({ enableAutoPipelining: false }));
      void this.#loop();
      return;
    }
    if (this.#idle) {
      this.#idle();
      return;
    }
    if (!this.#reading || this.#woken) return;
    this.#woken = true;
    // Lands before or during the read out: either way that read answers at once.
    void this.#main
      .multi()
      .xadd(this.#wakeKey, 'MAXLEN', '1', '*', 'w', '1')
      .pexpire(this.#wakeKey, WAKE_TTL_MS)
      .exec()
      .catch(() => undefined);
  }

  async #loop(): Promise<void> {
    const reader = this.#reader!;
    while (!this.#closed) {
      if (this.#streams.size === 0) {
        await new Promise<void>((resolve) => {
          this.#idle = resolve;
        });
        this.#idle = undefined;
        continue;
      }
      const keys = [...this.#streams.keys()];
      const ids = keys.map((key) => this.#streams.get(key)!.last);
      this.#reading = true;
      this.#woken = false;
      let reply: StreamReply;
      try {
        reply = (await reader.xread(
          'COUNT',
          PAGE,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          ...keys,
          this.#wakeKey,
          ...ids,
          this.#wakeLast,
        )) as StreamReply;
      } catch {
        if (!this.#closed) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      } finally {
        this.#reading = false;
      }
      for (const [key, raw] of reply ?? []) {
        if (key === this.#wakeKey) {
          this.#wakeLast = raw.at(-1)?.[0] ?? this.#wakeLast;
          continue;
        }
        this.#deliver(this.#streams.get(key), decodeEntries(raw));
      }
    }
  }

  #deliver(tailed: Tailed | undefined, entries: ReadEntry[]): void {
    const newest = entries.at(-1);
    if (!tailed || !newest) return;
    tailed.last = newest.id;
    for (const waiter of [...tailed.waiters]) {
      // Each waiter is at or past where this read started, so its fresh entries are all here.
      const fresh = entries.filter((entry) => compareLogIds(entry.id, waiter.after) > 0);
      if (fresh.length > 0) waiter.resolve(fresh);
    }
  }
}
