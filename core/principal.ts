import { createHash } from 'node:crypto';

/**
 * Who a run, a session, an approval or a task is for: the caller's identity is the kernel's, so
 * every face (HTTP, A2A, AG-UI, MCP, the CLI) only maps its credential to one of these, and every
 * plugin reads the same one. `id` is stable per caller and never a credential (`key:` and a digest
 * of an API key, or the id the config gives it); `local` is the one caller of a server without keys
 * and of the CLI; `anonymous` is a keyless caller of a public path.
 */
export interface Principal {
  id: string;
  kind: 'api-key' | 'local' | 'anonymous';
  /**
   * Sees and acts on every principal's runs, approvals and tasks, and reads the conversations of the
   * runs it sees; a session id it sends still names a session of its own.
   */
  admin?: boolean;
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

/**
 * The stored session a caller's session id names: the caller's own, so one API key naming another's
 * session id gets a conversation of its own, never the other's history. The keyless server's one
 * caller (`local`) keeps the plain id, shared with the CLI (`hubos run --session`). Session ids
 * allow neither `~` nor `/`, so no caller's id can name another's key, and no session's stored
 * messages (`<key>/…`) fall under another's prefix.
 */
export function sessionKey(owner: string, sessionId: string): string {
  return owner === 'local' ? sessionId : `${owner}~${sessionId}`;
}

/**
 * Whose a stored session is, told by its id as `sessionKey` made it: `<owner>~<id>` is the
 * owner's, a plain id the keyless caller's (`local`). For sessions whose principal is not known
 * (those kept before the sessions table, or appended without one).
 */
export function sessionOwner(storedId: string): string {
  // Owner ids hold no `/`; an id given in code may go on with `/…` (session "a/b" is a's owner's).
  const head = storedId.includes('/') ? storedId.slice(0, storedId.indexOf('/')) : storedId;
  const cut = head.lastIndexOf('~');
  return cut > 0 ? head.slice(0, cut) : 'local';
}
