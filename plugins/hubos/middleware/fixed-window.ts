/** Keys kept at most: past it (after a sweep) the table starts over rather than grow. */
const MAX_KEYS = 100_000;

/**
 * Counts events per key in fixed windows: `hit` answers the seconds to wait once a key is past `max`
 * in its window. Attackers choose keys (client addresses): stale windows are swept at most once per
 * window once the table is large, and it never holds more than MAX_KEYS, so neither its memory nor
 * the time a request spends sweeping grows without bound.
 */
export class FixedWindows {
  readonly #windows = new Map<string, { start: number; count: number }>();
  readonly #windowMs: number;
  readonly #max: number;
  #lastSweep = 0;

  constructor(windowMs: number, max: number) {
    this.#windowMs = windowMs;
    this.#max = max;
  }

  /** Keys it holds now. */
  get size(): number {
    return this.#windows.size;
  }

  /** Counts one event for `key`: undefined while within the limit, else the seconds until the window ends. */
  hit(key: string): number | undefined {
    const window = this.#current(key, true)!;
    window.count++;
    return window.count > this.#max ? this.#retryAfter(window) : undefined;
  }

  /** Like `hit` without counting: whether `key` is already past the limit. */
  blocked(key: string): number | undefined {
    const window = this.#current(key, false);
    return window && window.count >= this.#max ? this.#retryAfter(window) : undefined;
  }

  #current(key: string, create: boolean) {
    const now = Date.now();
    let window = this.#windows.get(key);
    if (window && now - window.start < this.#windowMs) return window;
    if (!create) return undefined;
    window = { start: now, count: 0 };
    this.#windows.set(key, window);
    if (this.#windows.size > 10_000 && now - this.#lastSweep >= this.#windowMs) {
      this.#lastSweep = now;
      for (const [k, w] of this.#windows) if (now - w.start >= this.#windowMs) this.#windows.delete(k);
    }
    if (this.#windows.size > MAX_KEYS) {
      this.#windows.clear();
      this.#windows.set(key, window);
    }
    return window;
  }

  #retryAfter(window: { start: number }): number {
    return Math.max(1, Math.ceil((window.start + this.#windowMs - Date.now()) / 1000));
  }
}
