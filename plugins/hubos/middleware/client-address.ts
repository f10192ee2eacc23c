import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The client's address, as limits count it: the socket's peer — or, when the peer is a proxy named
 * in `server.trustProxy`, the nearest address in `X-Forwarded-For` that is not one of them (what the
 * proxy saw). A header from anyone else is ignored: a client cannot choose its own address.
 * `unknown` in process (`app.request`).
 */
export function clientAddress(c: Context, trusted: ReadonlySet<string> = NO_PROXIES): string {
  let peer: string;
  try {
    peer = getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
  if (!trusted.has(peer)) return peer;
  const hops = (c.req.header('x-forwarded-for') ?? '').split(',').map((hop) => hop.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (hop !== '' && !trusted.has(hop)) return hop;
  }
  return peer;
}

const NO_PROXIES: ReadonlySet<string> = new Set();
