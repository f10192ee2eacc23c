/**
 * Counts events per key in fixed windows: `hit` answers the seconds to wait once a key is past `max`
 * in its window. Stale windows are swept when the table grows, so attackers choosing keys (client
 * addresses, wrong API keys) cannot grow it without bound.
 */
export class FixedWindows {
  readonly #windows = new Map<string, { start: number; count: number }>();
  readonly #windowMs: number;
  readonly #max: number;

  constructor(windowMs: number, max: number) {
    this.#windowMs = windowMs;
    this.#max = max;
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
    if (this.#windows.size > 10_000)
      for (const [k, w] of this.#windows) if (now - w.start >= this.#windowMs) this.#windows.delete(k);
    return window;
  }

  #retryAfter(window: { start: number }): number {
    return Math.max(1, Math.ceil((window.start + this.#windowMs - Date.now()) / 1000));
  }
}
