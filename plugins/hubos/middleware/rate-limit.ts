import type { MiddlewareHandler } from 'hono';
import { HUBOS_ERROR_CODES } from '../errors.ts';
import { clientAddress } from './client-address.ts';
import { FixedWindows } from './fixed-window.ts';

/** Fixed-window request counting per caller (API key, else client address): 429 with Retry-After past `max`. */
export function rateLimit(options: {
  windowMs: number;
  max: number;
  trustProxy?: ReadonlySet<string>;
}): MiddlewareHandler {
  const windows = new FixedWindows(options.windowMs, options.max);
  return async (c, next) => {
    const principal = c.get('principal');
    const key = principal?.kind === 'api-key' ? principal.id : clientAddress(c, options.trustProxy);
    const retryAfter = windows.hit(key);
    if (retryAfter !== undefined) {
      throw HUBOS_ERROR_CODES.create(
        'RATE_LIMITED',
        `too many requests: at most ${options.max} per ${options.windowMs} ms`,
        { headers: { 'retry-after': String(retryAfter) } },
      );
    }
    return next();
  };
}
