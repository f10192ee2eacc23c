import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The client's address, as limits count it (IPv6 by its /64, see `limitKey`): the socket's peer — or, when the peer is a proxy named
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
  if (!trusted.has(peer)) return limitKey(peer);
  const hops = (c.req.header('x-forwarded-for') ?? '').split(',').map((hop) => hop.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (hop !== '' && !trusted.has(hop)) return limitKey(hop);
  }
  return limitKey(peer);
}

const NO_PROXIES: ReadonlySet<string> = new Set();

/**
 * The key limits count an address under: an IPv6 address by its /64 network (one host commonly
 * holds a whole /64, so counting single addresses would let it escape every limit); anything else
 * (IPv4, IPv4-mapped IPv6, `unknown`) as it is.
 */
export function limitKey(address: string): string {
  if (!address.includes(':') || address.includes('.')) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
