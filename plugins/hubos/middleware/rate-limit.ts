import type { MiddlewareHandler } from 'hono';
import type { Bus } from '../../../core/index.ts';
import { HUBOS_ERROR_CODES } from '../errors.ts';
import { clientAddress } from './client-address.ts';
import { FixedWindows } from './fixed-window.ts';
import { SharedWindows } from './shared-windows.ts';

export interface RateLimitOptions {
  windowMs: number;
  max: number;
  trustProxy?: ReadonlySet<string>;
  /** A shared bus (Redis) makes the limit one for all instances; a local one keeps it in this process. */
  bus?: Bus;
  /** Told once when the shared bus fails and requests are counted per instance instead. */
  warn?: (message: string) => void;
}

/** Fixed-window request counting per caller (API key, else client address): 429 with Retry-After past `max`. */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler {
  const { windowMs, max } = options;
  const local = new FixedWindows(windowMs, max);
  const keyOf = (c: Parameters<MiddlewareHandler>[0]): string => {
    const principal = c.get('principal');
    return principal?.kind === 'api-key' ? principal.id : clientAddress(c, options.trustProxy);
  };
  const tooMany = (retryAfter: number) =>
    HUBOS_ERROR_CODES.create('RATE_LIMITED', `too many requests: at most ${max} per ${windowMs} ms`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  if (options.bus?.shared) {
    const shared = new SharedWindows(options.bus, 'rate', windowMs, max, local, options.warn ?? (() => {}));
    return async (c, next) => {
      const key = keyOf(c);
      // A caller this instance already saw at the limit is refused without asking the bus again.
      const retryAfter = shared.blocked(key) ?? (await shared.hit(key));
      if (retryAfter !== undefined) throw tooMany(retryAfter);
      return next();
    };
  }
  // The single instance's path, as fast as ever: the run route is benchmarked through it.
  return async (c, next) => {
    const retryAfter = local.hit(keyOf(c));
    if (retryAfter !== undefined) throw tooMany(retryAfter);
    return next();
  };
}
