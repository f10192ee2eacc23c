import { createHash } from 'node:crypto';

/**
 * Who is calling, as the server's auth established it. `id` is stable per API key and never the key
 * itself (`key:` and a digest of it, or the id the key was given in `server.apiKeys`); `local` is the
 * one caller of a server without keys (loopback only); `anonymous` is a keyless caller of a public path.
 */
export interface Principal {
  id: string;
  kind: 'api-key' | 'local' | 'anonymous';
  /** Sees and acts on every principal's runs, approvals and tasks (sessions stay each caller's own). */
  admin?: boolean;
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

/** A caller without a key on a path served without one (the page, /health, the agent cards). */
export const ANONYMOUS: Principal = Object.freeze({ id: 'anonymous', kind: 'anonymous' });

/** The caller of a server without API keys: there is only one, and it sees everything the server keeps. */
export const LOCAL: Principal = Object.freeze({ id: 'local', kind: 'local', admin: true });

/** The principal of an API key: its id names the key without revealing it (in logs, records, limits). */
export function keyPrincipal(key: string, options: { id?: string; admin?: boolean } = {}): Principal {
  return Object.freeze({
    id: options.id ?? `key:${createHash('sha256').update(key).digest('hex').slice(0, 16)}`,
    kind: 'api-key',
    ...(options.admin ? { admin: true } : {}),
  });
}

/**
 * Whether `principal` may see a record `owner` created: its own, or any with an admin key. Records
 * from before owners were kept (no owner) are the admin's and the keyless server's only.
 */
export function canSee(principal: Principal, owner: string | undefined): boolean {
  return principal.admin === true || (owner !== undefined && owner === principal.id);
}
