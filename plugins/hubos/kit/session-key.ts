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
