import { AddressGuard, defineTool, type Tool } from '../../../core/index.ts';
import { buildRequest } from './build-request.ts';
import { guardedFetch, type HttpToolResult } from './fetch.ts';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TIMEOUT_MS,
  type HttpToolOptions,
  MAX_TIMEOUT_MS,
} from './options.ts';

export type { DnsResolver } from '../../../core/index.ts';
export type { HttpToolResult } from './fetch.ts';
export { HTTP_CONFIG_SCHEMA, type HttpToolOptions } from './options.ts';

const METHODS = [
  ['http_get', 'GET', 'Fetch a URL with HTTP GET'],
  ['http_post', 'POST', 'Send an HTTP POST request'],
  ['http_put', 'PUT', 'Send an HTTP PUT request'],
  ['http_delete', 'DELETE', 'Send an HTTP DELETE request'],
] as const;

const RETURNS =
  'Returns { status, headers, body (parsed when JSON, else text), truncated, url (after redirects) }. ' +
  'Internal addresses (loopback, private networks, cloud metadata) are refused unless allowed in config.';

/** The http_get, http_post, http_put and http_delete tools, sharing one address policy. */
export function httpTools(options: HttpToolOptions = {}): Tool[] {
  const guard = new AddressGuard({
    allowHosts: options.allowHosts ?? [],
    setting: 'http.allowHosts',
    ...(options.resolver ? { resolver: options.resolver } : {}),
  });
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const inputSchema = httpInputSchema(Math.min(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS));

  return METHODS.map(([name, method, summary]) =>
    defineTool({
      name,
      description: `${summary}. ${RETURNS}`,
      inputSchema,
      permissions: ['net:http'],
      handler: ({ signal }, { input }): Promise<HttpToolResult> =>
        guardedFetch(
          buildRequest(method, input),
          guard,
          { timeoutMs: input.timeout, maxBodyBytes, maxRedirects },
          signal,
        ),
    }),
  );
}

function httpInputSchema(defaultTimeout: number) {
  return {
    type: 'object',
    properties: {
      url: { type: 'string', minLength: 1, description: 'Absolute http(s) URL.' },
      headers: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'Request headers, e.g. { "authorization": "Bearer ..." }.',
      },
      query: {
        type: 'object',
        additionalProperties: { type: ['string', 'number', 'boolean'] },
        description: 'Query parameters added to the URL (encoded for you).',
      },
      body: {
        type: ['object', 'string'],
        description: 'Request body: an object is sent as JSON, a string as it is.',
      },
      timeout: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_TIMEOUT_MS,
        default: defaultTimeout,
        description: `Milliseconds for the whole request, body included (max ${MAX_TIMEOUT_MS}).`,
      },
    },
    required: ['url'],
    additionalProperties: false,
  } as const;
}
