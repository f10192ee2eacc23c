import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/** The peer's address (the socket's, never a header a client could forge), or `unknown` in process. */
export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
