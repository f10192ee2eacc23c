import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { HttpError } from '../http-error.ts';

/** `Authorization: Bearer <key>` against the configured keys; no keys means no auth (loopback only). */
export function apiKeyAuth(keys: readonly string[]): MiddlewareHandler {
  const accepted = keys.map((key) => Buffer.from(key));
  return async (c, next) => {
    if (accepted.length === 0) return next();
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match)
      throw new HttpError(401, 'UNAUTHORIZED', 'missing API key: send "Authorization: Bearer <key>"', {
        'www-authenticate': 'Bearer',
      });
    const given = Buffer.from(match[1]!.trim());
    if (!accepted.some((key) => key.length === given.length && timingSafeEqual(key, given))) {
      throw new HttpError(401, 'UNAUTHORIZED', 'invalid API key', { 'www-authenticate': 'Bearer' });
    }
    c.set('apiKey' as never, match[1]!.trim() as never);
    return next();
  };
}
