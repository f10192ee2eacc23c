import { HubosError } from '../errors.ts';
import type { StoreValue } from '../store/store.ts';
import type { Bus, LogEntry } from './bus.ts';
import { compareLogIds, LOG_ID } from './log-id.ts';

interface Log {
  /** In id order. */
  entries: LogEntry[];
  /** The position and n of the last id given (kept when trimming empties the log, as Redis does). */
  position: number;
  n: number;
  /** Readers waiting for the next entry (made for the first: most logs are never followed). */
  wake?: Set<() => void>;
  expiry?: NodeJS.Timeout;
}

const DEFAULT_MAX_LEN = 10_000;
/** Ended logs kept at most (the oldest go first): a busy server's finished runs must not pile up. */
const MAX_EXPIRING_LOGS = 1_000;

/** The bus of a single instance: everything in this process, nothing shared (the default). */
export class LocalBus implements Bus {
  readonly driver = 'local';
  readonly shared = false;
  readonly #channels = new Map<string, Set<(message: StoreValue) => void>>();
  readonly #logs = new Map<string, Log>();
  readonly #windows = new Map<string, { count: number; resetAt: number }>();
  /** Semaphore slots taken, by key: each slot's expiry. */
  readonly #slots = new Map<string, Map<string, number>>();
  #slotSeq = 0;
  /** Logs with an expiry, oldest first. */
  readonly #expiring = new Set<string>();

  async publish(channel: string, message: StoreValue): Promise<void> {
    // Copied, as a shared bus would: a subscriber cannot change what the publisher holds.
    const json = JSON.stringify(message);
    for (const handler of this.#channels.get(channel) ?? []) handler(JSON.parse(json));
  }

  async subscribe(channel: string, handler: (message: StoreValue) => void): Promise<() => Promise<void>> {
    const handlers = this.#channels.get(channel) ?? new Set();
    this.#channels.set(channel, handlers);
    const own = (message: StoreValue) => handler(message);
    handlers.add(own);
    return async () => {
      handlers.delete(own);
      if (handlers.size === 0) this.#channels.delete(channel);
    };
  }

  // Not async: a run appends each of its events, and the async machinery was most of the cost.
  append(
    name: string,
    entry: StoreValue,
    options?: { maxLen?: number; at?: number; ttlMs?: number },
  ): Promise<string> {
    const log = this.#log(name);
    const at = options?.at;
    if (at !== undefined) {
      if (!Number.isSafeInteger(at) || at <= log.position)
        return Promise.reject(
          new HubosError('BUS_FAILED', `log ${name}: position ${at} is not after its last (${log.position})`),
        );
      log.position = at;
      log.n = 0;
    } else if (log.position === 0 && log.n === 0) log.n = 1;
    else log.n++;
    const id = `${log.position}-${log.n}`;
    log.entries.push({ id, entry });
    const max = options?.maxLen ?? DEFAULT_MAX_LEN;
    if (log.entries.length > max) log.entries.splice(0, log.entries.length - max);
    if (log.wake && log.wake.size > 0) {
      for (const wake of log.wake) wake();
      log.wake.clear();
    }
    if (options?.ttlMs !== undefined) void this.expire(name, options.ttlMs);
    return Promise.resolve(id);
  }

  async last(name: string): Promise<LogEntry | undefined> {
    return this.#logs.get(name)?.entries.at(-1);
  }

  async *follow(name: string, after: string | undefined, signal: AbortSignal): AsyncIterable<LogEntry> {
    let last = after !== undefined && LOG_ID.test(after) ? after : '0-0';
    while (!signal.aborted) {
      const log = this.#log(name);
      // Starts at the cursor: the entries before it are not looked at.
      let index = firstAfter(log.entries, last);
      let fresh = false;
      while (index < log.entries.length) {
        if (signal.aborted) return;
        const entry = log.entries[index]!;
        last = entry.id;
        fresh = true;
        yield entry;
        // The consumer may have taken its time: entries may have been trimmed or appended meanwhile.
        index = log.entries[index] === entry ? index + 1 : firstAfter(log.entries, last);
      }
      if (fresh) continue;
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          log.wake?.delete(done);
          resolve();
        };
        log.wake ??= new Set();
        log.wake.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  async expire(name: string, ttlMs: number): Promise<void> {
    const log = this.#log(name);
    clearTimeout(log.expiry);
    log.expiry = setTimeout(() => this.#drop(name), ttlMs);
    log.expiry.unref();
    this.#expiring.delete(name);
    this.#expiring.add(name);
    if (this.#expiring.size > MAX_EXPIRING_LOGS) this.#drop(this.#expiring.values().next().value!);
  }

  #drop(name: string): void {
    const log = this.#logs.get(name);
    clearTimeout(log?.expiry);
    this.#expiring.delete(name);
    // A reader still waiting on it keeps it; it goes with the reader.
    if (log && !log.wake?.size) this.#logs.delete(name);
  }

  async acquire(key: string, limit: number, ttlMs: number): Promise<string | undefined> {
    const now = Date.now();
    let slots = this.#slots.get(key);
    if (!slots) {
      slots = new Map();
      this.#slots.set(key, slots);
    }
    for (const [id, expiresAt] of slots) if (expiresAt <= now) slots.delete(id);
    if (slots.size >= limit) return undefined;
    const id = `${now}-${++this.#slotSeq}`;
    slots.set(id, now + ttlMs);
    return id;
  }

  async release(key: string, slot: string): Promise<void> {
    const slots = this.#slots.get(key);
    slots?.delete(slot);
    if (slots?.size === 0) this.#slots.delete(key);
  }

  async hit(key: string, windowMs: number, amount = 1): Promise<{ count: number; resetMs: number }> {
    const now = Date.now();
    let window = this.#windows.get(key);
    if (!window || window.resetAt <= now) {
      // Expired windows go as new ones come, so the map stays as large as the active keys.
      if (this.#windows.size > 100_000)
        for (const [k, w] of this.#windows) if (w.resetAt <= now) this.#windows.delete(k);
      window = { count: 0, resetAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.count += amount;
    return { count: window.count, resetMs: window.resetAt - now };
  }

  async close(): Promise<void> {
    for (const log of this.#logs.values()) clearTimeout(log.expiry);
    this.#logs.clear();
    this.#expiring.clear();
    this.#channels.clear();
  }

  #log(name: string): Log {
    let log = this.#logs.get(name);
    if (!log) {
      log = { entries: [], position: 0, n: 0 };
      this.#logs.set(name, log);
    }
    return log;
  }
}

/** The index of the first entry whose id is above `id` (binary search: entries are in id order). */
function firstAfter(entries: LogEntry[], id: string): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareLogIds(entries[middle]!.id, id) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
