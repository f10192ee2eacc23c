import type { OutgoingRequest } from './fetch.ts';

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

/**
 * The request a redirect response asks for, or undefined when the response is final.
 * 303 turns anything but HEAD into a GET, and so do 301/302 after a POST (RFC 9110 §15.4);
 * 307/308 repeat the method and body.
 */
export function redirectTarget(
  request: OutgoingRequest,
  status: number,
  location: string | undefined,
): OutgoingRequest | undefined {
  if (!REDIRECTS.has(status) || !location) return undefined;
  let url: URL;
  try {
    url = new URL(location, request.url);
  } catch {
    return undefined; // An unusable Location: give the model the 3xx itself.
  }
  url.hash = '';
  const headers = { ...request.headers };
  let { method, body } = request;
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
    for (const name of BODY_HEADERS) delete headers[name];
  }
  if (url.origin !== request.url.origin) for (const name of ORIGIN_BOUND) delete headers[name];
  return { method, url, headers, ...(body === undefined ? {} : { body }) };
}
