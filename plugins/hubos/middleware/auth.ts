import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { HUBOS_ERROR_CODES } from '../errors.ts';
import { ANONYMOUS, keyPrincipal, type Principal } from '../kit/principal.ts';

/**
 * `Authorization: Bearer <key>` against the configured keys, setting `c.get('principal')`; no keys
 * means no auth (loopback only) and every caller is `anonymous`. `open(path)` names the paths served
 * without a key (they still get the caller's principal when a valid key is sent).
 */
export function apiKeyAuth(keys: readonly string[], open: (path: string) => boolean): MiddlewareHandler {
  const accepted = keys.map((key) => ({ bytes: Buffer.from(key), principal: keyPrincipal(key) }));
  const match = (header: string): Principal | undefined => {
    const bearer = /^Bearer\s+(.+)$/i.exec(header);
    if (!bearer) return undefined;
    const given = Buffer.from(bearer[1]!.trim());
    return accepted.find(({ bytes }) => bytes.length === given.length && timingSafeEqual(bytes, given))
      ?.principal;
  };
  return async (c, next) => {
    if (accepted.length === 0) {
      c.set('principal', ANONYMOUS);
      return next();
    }
    const header = c.req.header('authorization') ?? '';
    const principal = header === '' ? undefined : match(header);
    if (principal) {
      c.set('principal', principal);
      return next();
    }
    if (open(c.req.path)) {
      c.set('principal', ANONYMOUS);
      return next();
    }
    if (!/^Bearer\s+/i.test(header))
      throw HUBOS_ERROR_CODES.create('UNAUTHORIZED', 'missing API key: send "Authorization: Bearer <key>"');
    throw HUBOS_ERROR_CODES.create('UNAUTHORIZED', 'invalid API key');
  };
}
