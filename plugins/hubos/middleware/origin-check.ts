import type { Context, MiddlewareHandler } from 'hono';
import { HUBOS_ERROR_CODES } from '../errors.ts';

/** The methods that change state: the ones a page on another site must not send here. */
export const CHANGES_STATE: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface OriginPolicy {
  /** `server.cors.origin`: origins allowed besides the server's own (`'*'`: any). */
  cors?: string | readonly string[] | undefined;
  /** The origin of `server.publicUrl`, when the server is reached through a proxy. */
  publicOrigin?: string | undefined;
}

/**
 * Whether a browser page at `origin` may talk to this server: its own origin (the page, under the
 * `Host` the host check already allowed), the public URL's, or one `server.cors.origin` lists.
 * `null` (a sandboxed frame, a file) is nobody's origin.
 */
export function originAllowed(origin: string, c: Context, policy: OriginPolicy): boolean {
  const host = c.req.header('host') ?? new URL(c.req.url).host;
  if (origin === `http://${host}` || origin === `https://${host}`) return true;
  return origin === policy.publicOrigin || corsAllows(origin, policy.cors);
}

function corsAllows(origin: string, cors: OriginPolicy['cors']): boolean {
  return cors === '*' || (typeof cors === 'string' ? cors === origin : (cors?.includes(origin) ?? false));
}

/**
 * 403 `ORIGIN_NOT_ALLOWED` for a state-changing request (POST, PUT, PATCH, DELETE) from another
 * site's page: an `Origin` the server does not allow, or fetch metadata saying so even without an
 * `Origin` — `Sec-Fetch-Site: cross-site` unless its `Origin` is one `server.cors.origin` lists,
 * `same-site` (a sibling subdomain or port) unless its `Origin` is allowed. Clients that are not
 * browsers send neither and pass; so do the server's own page (`same-origin`) and a typed URL
 * (`none`). Reads need no check: without CORS a page cannot read the answers.
 */
export function originCheck(policy: OriginPolicy): MiddlewareHandler {
  return async (c, next) => {
    if (!CHANGES_STATE.has(c.req.method)) return next();
    const origin = c.req.header('origin');
    if (origin !== undefined && !originAllowed(origin, c, policy)) throw refused(`the web page at ${origin}`);
    const site = c.req.header('sec-fetch-site')?.toLowerCase();
    if (site === 'cross-site' && !(origin && corsAllows(origin, policy.cors)))
      throw refusedBySite(site, origin);
    // An allowed Origin was checked above; without one, a sibling site is not let through.
    if (site === 'same-site' && origin === undefined) throw refusedBySite(site, origin);
    return next();
  };
}

function refused(who: string) {
  return HUBOS_ERROR_CODES.create(
    'ORIGIN_NOT_ALLOWED',
    `${who} may not send requests that change state to this server: add its origin to server.cors.origin to allow it`,
  );
}

function refusedBySite(site: string, origin: string | undefined) {
  return HUBOS_ERROR_CODES.create(
    'ORIGIN_NOT_ALLOWED',
    `the browser marked this request "Sec-Fetch-Site: ${site}" (a page on another site${origin ? `, ${origin}` : ', no Origin'}), and such pages may not send requests that change state to this server: add the page's origin to server.cors.origin to allow it; API clients send no Sec-Fetch-Site`,
  );
}
