import type { StoreValue } from '../store/store.ts';

/** One entry of a resumable log: `id` orders entries and is what a reader resumes after. */
export interface LogEntry {
  id: string;
  entry: StoreValue;
}

/**
 * What joins instances of one service: messages, resumable logs (a run's events) and fixed-window
 * counters (rate limits). `local` keeps it all in this process; `redis` shares it between every
 * instance on one Redis. Durable state (records, leases, queued runs) lives in the Store, not here:
 * runs are claimed from their rows, so the bus has no job queue.
 */
export interface Bus {
  /** `local` or `redis`. */
  readonly driver: string;
  /** True when other instances hear what this one publishes (a shared bus). */
  readonly shared: boolean;

  /** Sends to every subscriber of `channel`, on every instance; nothing is kept for later subscribers. */
  publish(channel: string, message: StoreValue): Promise<void>;
  /** Calls `handler` with each message published on `channel` from now on; resolves with an unsubscribe. */
  subscribe(channel: string, handler: (message: StoreValue) => void): Promise<() => Promise<void>>;

  /**
   * Appends to a log (created on first use), keeping about the last `maxLen` entries; resolves with
   * its id. With `at` (a positive integer above the position of every entry in the log) the id is
   * `<at>-0`, so a reader can start right after any position (`logId` in log-id.ts); without it the
   * entry goes right after the last one, at its position. An `at` not above the last fails. With
   * `ttlMs`, the log is dropped that long from now, as `expire` does (a run's end: one call).
   */
  append(
    log: string,
    entry: StoreValue,
    options?: { maxLen?: number; at?: number; ttlMs?: number },
  ): Promise<string>;
  /** The log's last entry, or undefined when the log is empty or gone. */
  last(log: string): Promise<LogEntry | undefined>;
  /**
   * The log's entries after `after` (from the start when undefined), then each new one as it is
   * appended, until `signal` aborts. Reading starts at `after`: what comes before it is not read.
   * An `after` id that is no longer kept starts at the oldest kept; a malformed one at the start.
   */
  follow(log: string, after: string | undefined, signal: AbortSignal): AsyncIterable<LogEntry>;
  /** Drops the log `ttlMs` from now (a finished run's events stay readable that long). */
  expire(log: string, ttlMs: number): Promise<void>;

  /**
   * Counts `amount` hits (default 1; tokens, say) on `key` in its current fixed window: the hits so
   * far and the ms until it resets.
   */
  hit(key: string, windowMs: number, amount?: number): Promise<{ count: number; resetMs: number }>;

  /**
   * Takes one of `limit` slots of `key` (a semaphore shared by every instance on the bus) for at
   * most `ttlMs`: resolves with the slot's id, or undefined when all are taken. A slot not released
   * (its instance died) frees itself when its time is up.
   */
  acquire(key: string, limit: number, ttlMs: number): Promise<string | undefined>;
  /** Gives back a slot `acquire` took. */
  release(key: string, slot: string): Promise<void>;

  close(): Promise<void>;
}
