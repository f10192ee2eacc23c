import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { HUBOS_ERROR_CODES } from '../errors.ts';

/**
 * The hosts a request may name in its `Host` header: `true` allows any; a name allows that host; a
 * name with a leading dot (`.example.com`) allows it and its subdomains.
 */
export type AllowedHosts = true | readonly string[];

/** The host part of a `Host` header, lowercased, without its port (`[::1]:3000` → `[::1]`). */
export function hostName(header: string): string {
  const host = header.trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/**
 * Whether a host may be named. Loopback names and IP addresses are always allowed: a DNS-rebinding
 * page reaches the server under a name of its own, never under an address (the browser would then
 * count the page as the server's own origin) — as Vite's `server.allowedHosts` decides.
 */
export function hostAllowed(host: string, allowed: AllowedHosts): boolean {
  if (allowed === true) return true;
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host.startsWith('[') ? host.slice(1, -1) : host) !== 0) return true;
  return allowed.some((entry) => {
    const name = entry.toLowerCase();
    return name.startsWith('.') ? host === name.slice(1) || host.endsWith(name) : host === name;
  });
}

/**
 * 403 `HOST_NOT_ALLOWED` for a `Host` the server does not answer to: a web page on a name that
 * resolves to this machine (DNS rebinding) gets nothing, the page and the protocol endpoints included.
 * Answers are remembered per header value, so the check costs one map lookup per request.
 */
export function hostCheck(allowed: AllowedHosts): MiddlewareHandler {
  const seen = new Map<string, boolean>();
  return async (c, next) => {
    // In process (`app.request`) there is no Host header: the URL's host is the one asked for.
    const header = c.req.header('host') ?? new URL(c.req.url).host;
    let ok = seen.get(header);
    if (ok === undefined) {
      ok = hostAllowed(hostName(header), allowed);
      if (seen.size >= 256) seen.clear(); // attackers choose Host values: keep the memory bounded
      seen.set(header, ok);
    }
    if (!ok)
      throw HUBOS_ERROR_CODES.create(
        'HOST_NOT_ALLOWED',
        `this server does not answer to the host "${hostName(header)}" (DNS rebinding protection): add it to server.allowedHosts, or set server.publicUrl to the URL clients use`,
      );
    return next();
  };
}
