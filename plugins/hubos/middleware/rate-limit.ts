import { getConnInfo } from '@hono/node-server/conninfo';
import type { MiddlewareHandler } from 'hono';
import { HUBOS_ERROR_CODES } from '../errors.ts';

/** Fixed-window request counting per caller (API key, else client address): 429 with Retry-After past `max`. */
export function rateLimit(options: { windowMs: number; max: number }): MiddlewareHandler {
  const windows = new Map<string, { start: number; count: number }>();
  return async (c, next) => {
    const principal = c.get('principal');
    const key = principal && principal.kind !== 'anonymous' ? principal.id : clientAddress(c);
    const now = Date.now();
    let window = windows.get(key);
    if (!window || now - window.start >= options.windowMs) {
      window = { start: now, count: 0 };
      windows.set(key, window);
      if (windows.size > 10_000)
        for (const [k, w] of windows) if (now - w.start >= options.windowMs) windows.delete(k);
    }
    window.count++;
    if (window.count > options.max) {
      const retryAfter = Math.ceil((window.start + options.windowMs - now) / 1000);
      throw HUBOS_ERROR_CODES.create(
        'RATE_LIMITED',
        `too many requests: at most ${options.max} per ${options.windowMs} ms`,
        { headers: { 'retry-after': String(Math.max(retryAfter, 1)) } },
      );
    }
    return next();
  };
}

function clientAddress(c: Parameters<MiddlewareHandler>[0]): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
