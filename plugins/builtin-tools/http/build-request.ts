import { HubosError } from '../../../core/index.ts';
import type { OutgoingRequest } from './fetch.ts';

/** The tool input that shapes a request (already validated against the tool's schema). */
export interface HttpInput {
  url: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: string | Record<string, unknown>;
}

const USER_AGENT = 'HubOS-http-tool';

/** Turns tool input into a request: query merged into the URL, an object body sent as JSON. */
export function buildRequest(method: string, input: HttpInput): OutgoingRequest {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new HubosError(
      'TOOL_FAILED',
      `"${input.url}" is not an absolute URL (e.g. https://example.com/path)`,
    );
  }
  for (const [name, value] of Object.entries(input.query ?? {})) url.searchParams.append(name, String(value));
  url.hash = ''; // Fragments never go on the wire.

  const headers: Record<string, string> = { 'user-agent': USER_AGENT };
  for (const [name, value] of Object.entries(input.headers ?? {})) headers[name.toLowerCase()] = value;

  if (input.body === undefined) return { method, url, headers };
  const json = typeof input.body !== 'string';
  headers['content-type'] ??= json ? 'application/json' : 'text/plain; charset=utf-8';
  return { method, url, headers, body: json ? JSON.stringify(input.body) : (input.body as string) };
}
