import { type Bus, errorMessage } from '../../../core/index.ts';
import { FixedWindows } from './fixed-window.ts';

/** Fixed-window counters as the middleware uses them: in this process (sync) or on a shared bus. */
export interface Windows {
  /** Counts one event: undefined within the limit, else the seconds until the window ends. */
  hit(key: string): number | undefined | Promise<number | undefined>;
  /** Like `hit` without counting, from what this instance knows: whether `key` is past the limit. */
  blocked(key: string): number | undefined;
}

/** How long a bus may take to count before the request is counted here instead (Redis down waits, not fails). */
const BUS_TIMEOUT_MS = 500;
/** After a failure, the bus is left alone this long: requests do not each wait for it. */
const RETRY_BUS_AFTER_MS = 5_000;
/** Keys remembered as blocked at most (attackers choose them), as in FixedWindows. */
const MAX_BLOCKED = 100_000;

/**
 * The windows for one limit: this process's own on a local bus (exactly as before: no await on the
 * request path), else counted with `bus.hit` so the limit is one for every instance.
 */
export function windowsOn(
  bus: Bus | undefined,
  name: string,
  windowMs: number,
  max: number,
  warn: (message: string) => void = () => undefined,
): Windows {
  const local = new FixedWindows(windowMs, max);
  return bus?.shared ? new SharedWindows(bus, name, windowMs, max, local, warn) : local;
}

/**
 * Windows counted on a shared bus (Redis). It fails open: when the bus fails or does not answer
 * within BUS_TIMEOUT_MS, requests are counted in this process's windows instead (the limit then
 * holds per instance) rather than answered 500 or left waiting; logged once per outage.
 */
export class SharedWindows implements Windows {
  readonly #bus: Bus;
  readonly #prefix: string;
  readonly #windowMs: number;
  readonly #max: number;
  readonly #local: FixedWindows;
  readonly #warn: (message: string) => void;
  /** Keys this instance saw reach the limit, with when their window ends: refused without asking the bus. */
  readonly #blocked = new Map<string, number>();
  #downUntil = 0;
  #down = false;

  constructor(
    bus: Bus,
    name: string,
    windowMs: number,
    max: number,
    local: FixedWindows,
    warn: (message: string) => void,
  ) {
    this.#bus = bus;
    this.#prefix = `hubos:${name}:`;
    this.#windowMs = windowMs;
    this.#max = max;
    this.#local = local;
    this.#warn = warn;
  }

  async hit(key: string): Promise<number | undefined> {
    if (Date.now() < this.#downUntil) return this.#local.hit(key);
    let counted: { count: number; resetMs: number };
    try {
      counted = await withTimeout(this.#bus.hit(this.#prefix + key, this.#windowMs), BUS_TIMEOUT_MS);
    } catch (error) {
      this.#downUntil = Date.now() + RETRY_BUS_AFTER_MS;
      if (!this.#down)
        this.#warn(
          `hubos: rate limits are counted per instance until the bus answers again: ${errorMessage(error)}`,
        );
      this.#down = true;
      return this.#local.hit(key);
    }
    if (this.#down) this.#warn('hubos: the bus answers again: rate limits are shared again');
    this.#down = false;
    if (counted.count >= this.#max) this.#block(key, Date.now() + counted.resetMs);
    return counted.count > this.#max ? seconds(counted.resetMs) : undefined;
  }

  blocked(key: string): number | undefined {
    const until = this.#blocked.get(key);
    if (until !== undefined) {
      const left = until - Date.now();
      if (left > 0) return seconds(left);
      this.#blocked.delete(key);
    }
    return this.#local.blocked(key);
  }

  #block(key: string, until: number): void {
    if (this.#blocked.size >= MAX_BLOCKED) {
      const now = Date.now();
      for (const [k, end] of this.#blocked) if (end <= now) this.#blocked.delete(k);
      if (this.#blocked.size >= MAX_BLOCKED) this.#blocked.clear();
    }
    this.#blocked.set(key, until);
  }
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
