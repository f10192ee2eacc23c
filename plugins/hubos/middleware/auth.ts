import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Bus } from '../../../core/index.ts';
import { ANONYMOUS, LOCAL, type Principal } from '../../../core/index.ts';
import type { AcceptedKey } from '../api-keys.ts';
import { HUBOS_ERROR_CODES } from '../errors.ts';
import { clientAddress } from './client-address.ts';
import { windowsOn } from './shared-windows.ts';

export interface AuthOptions {
  /** The paths served without a key (they still get the caller's principal when a valid key is sent). */
  open: (path: string) => boolean;
  /** Wrong keys allowed per client address and window before it gets 429 (brute force). */
  failures: { windowMs: number; max: number };
  /** Proxies whose X-Forwarded-For names the client (`server.trustProxy`). */
  trustProxy?: ReadonlySet<string>;
  /** A shared bus (Redis) counts wrong keys across all instances (see SharedWindows). */
  bus?: Bus;
  warn?: (message: string) => void;
}

/**
 * `Authorization: Bearer <key>` against the configured keys, setting `c.get('principal')`; no keys
 * means no auth (loopback only) and the caller is `local`. Keys are compared in constant time, all of
 * them every time; a client address that sent too many wrong keys gets 429 until its window ends.
 * On a shared bus wrong keys are counted across instances: each instance refuses the address once
 * it has itself seen the count reach the limit, so past it at most one more key is tried per instance.
 */
export function apiKeyAuth(keys: readonly AcceptedKey[], options: AuthOptions): MiddlewareHandler {
  // Digests of equal length are compared, so the time taken says nothing of a key's length either.
  const accepted = keys.map(({ key, principal }) => ({ digest: digest(key), principal }));
  const { windowMs, max } = options.failures;
  const failures = windowsOn(options.bus, 'auth-failures', windowMs, max, options.warn);
  const match = (given: string): Principal | undefined => {
    const candidate = digest(given);
    let found: Principal | undefined;
    // Every key is compared, so the time taken says nothing of which one (or whether one) matched.
    for (const { digest: known, principal } of accepted)
      if (timingSafeEqual(known, candidate)) found = principal;
    return found;
  };
  return async (c, next) => {
    if (accepted.length === 0) {
      c.set('principal', LOCAL);
      return next();
    }
    const header = c.req.header('authorization');
    if (header === undefined || header === '') {
      if (options.open(c.req.path)) {
        c.set('principal', ANONYMOUS);
        return next();
      }
      throw HUBOS_ERROR_CODES.create('UNAUTHORIZED', 'missing API key: send "Authorization: Bearer <key>"');
    }
    const address = clientAddress(c, options.trustProxy);
    const wait = failures.blocked(address);
    if (wait !== undefined) throw tooManyFailures(wait, max);
    const bearer = /^Bearer\s+(.+)$/i.exec(header);
    const principal = bearer ? match(bearer[1]!.trim()) : undefined;
    if (principal) {
      c.set('principal', principal);
      return next();
    }
    const counted = failures.hit(address);
    // Counted on a shared bus: another instance may have seen this address reach the limit first.
    if (counted instanceof Promise) {
      const over = await counted;
      if (over !== undefined) throw tooManyFailures(over, max);
    }
    if (options.open(c.req.path)) {
      c.set('principal', ANONYMOUS);
      return next();
    }
    if (!bearer)
      throw HUBOS_ERROR_CODES.create('UNAUTHORIZED', 'missing API key: send "Authorization: Bearer <key>"');
    throw HUBOS_ERROR_CODES.create('UNAUTHORIZED', 'invalid API key');
  };
}

function tooManyFailures(retryAfter: number, max: number) {
  return HUBOS_ERROR_CODES.create(
    'RATE_LIMITED',
    `too many requests with a wrong API key from this address (at most ${max} per window): wait ${retryAfter} s`,
    { headers: { 'retry-after': String(retryAfter) } },
  );
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}
