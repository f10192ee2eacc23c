import { redirectHop } from '../../../core/index.ts';
import type { OutgoingRequest } from './fetch.ts';

/**
 * The request a redirect response asks for, or undefined when the response is final (an unusable
 * Location gives the model the 3xx itself). The method, body and headers change as `redirectHop`
 * says: a 303 (or a 301/302 after a POST) becomes a GET, credentials stay on their origin.
 */
export function redirectTarget(
  request: OutgoingRequest,
  status: number,
  location: string | undefined,
): OutgoingRequest | undefined {
  const hop = redirectHop(request.url, request.method, status, location);
  if (!hop) return undefined;
  const headers = { ...request.headers };
  for (const name of hop.dropHeaders) delete headers[name];
  const body = hop.keepsBody ? request.body : undefined;
  return { method: hop.method, url: hop.url, headers, ...(body === undefined ? {} : { body }) };
}
