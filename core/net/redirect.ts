const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Credentials meant for one origin must not be handed to another (as fetch does).
const ORIGIN_BOUND = ['authorization', 'cookie', 'proxy-authorization'];
const BODY_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-location',
];

/** The next request a redirect asks for, as a client that follows redirects by hand sends it. */
export interface RedirectHop {
  /** Where to, resolved against the URL that answered, without a fragment. */
  url: URL;
  /** The method: a 303 (and a 301/302 after a POST) turns into a GET. */
  method: string;
  /** False when the body is dropped (the method turned into a GET). */
  keepsBody: boolean;
  /** Lowercase header names not to send again: the body's when it is dropped, credentials on another origin. */
  dropHeaders: readonly string[];
}

/**
 * The hop a redirect response asks for, or undefined when the response is final (not a redirect,
 * no Location, or one that does not parse). 303 turns anything but HEAD into a GET, and so do
 * 301/302 after a POST (RFC 9110 §15.4); 307/308 repeat the method and body. A hop to another
 * origin drops `authorization`, `cookie` and `proxy-authorization`; a caller drops its own
 * origin-bound headers on top.
 */
export function redirectHop(
  from: URL,
  method: string,
  status: number,
  location: string | null | undefined,
): RedirectHop | undefined {
  if (!REDIRECTS.has(status) || !location) return undefined;
  let url: URL;
  try {
    url = new URL(location, from);
  } catch {
    return undefined;
  }
  url.hash = '';
  const upper = method.toUpperCase();
  const toGet =
    (status === 303 && upper !== 'HEAD') || ((status === 301 || status === 302) && upper === 'POST');
  return {
    url,
    method: toGet ? 'GET' : method,
    keepsBody: !toGet,
    dropHeaders: [...(toGet ? BODY_HEADERS : []), ...(url.origin !== from.origin ? ORIGIN_BOUND : [])],
  };
}
