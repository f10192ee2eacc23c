import { createHash } from 'node:crypto';

/**
 * Who is calling, as the server's auth established it. `id` is stable per API key and never the key
 * itself (`key:` and a digest of it), or `anonymous` when the server has no keys (loopback only).
 */
export interface Principal {
  id: string;
  kind: 'api-key' | 'anonymous';
}

/** The Hono environment of HubOS routes: `new Hono<HubOSEnv>()` types `c.get('principal')`. */
export interface HubOSEnv {
  Variables: { principal: Principal };
}

declare module 'hono' {
  interface ContextVariableMap {
    /** The caller, set by HubOS's auth before any route runs. */
    principal: Principal;
  }
}

export const ANONYMOUS: Principal = Object.freeze({ id: 'anonymous', kind: 'anonymous' });

/** The principal of an API key: its id names the key without revealing it (in logs, records, limits). */
export function keyPrincipal(key: string): Principal {
  return Object.freeze({
    id: `key:${createHash('sha256').update(key).digest('hex').slice(0, 16)}`,
    kind: 'api-key',
  });
}
