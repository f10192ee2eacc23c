import type { Dispatcher } from 'undici';
import { errorMessage, HubosError } from '../../../core/index.ts';

export interface JsonRequest {
  /** Backend name for messages: `websearch (brave) ...`. */
  backend: string;
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  /** Added to 401/403 errors: how to fix the credentials. */
  authHint?: string;
  /** Added to other HTTP errors when the backend has a common misconfiguration. */
  statusHint?: (status: number) => string | undefined;
}

const MAX_ERROR_BODY = 16 * 1024;
// Search answers are a few KB; anything near this is not a search API talking.
const MAX_BODY = 8 * 1024 * 1024;

/**
 * Calls a search API and parses its JSON answer. The search backends are configured, trusted
 * endpoints (a self-hosted SearXNG usually sits on a private address), so no address policy applies.
 */
export async function fetchJson(req: JsonRequest, signal: AbortSignal): Promise<unknown> {
  const deadline = AbortSignal.timeout(req.timeoutMs);
  const both = AbortSignal.any([signal, deadline]);
  const who = `websearch (${req.backend})`;
  try {
    // undici loads with the first search, not with every server that registers the tool.
    const { request } = await import('undici');
    const response = await request(req.url, {
      method: req.method,
      headers: {
        accept: 'application/json',
        ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...req.headers,
      },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: both,
    });
    const failed = response.statusCode >= 400;
    const { text, cut } = await readText(response.body, failed ? MAX_ERROR_BODY : MAX_BODY);
    if (failed) throw statusError(req, response.statusCode, text);
    if (cut) throw new HubosError('TOOL_FAILED', `${who} answered with more than ${MAX_BODY} bytes`);
    try {
      return JSON.parse(text);
    } catch {
      throw new HubosError('TOOL_FAILED', `${who} answered with a body that is not JSON: ${clip(text)}`);
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (deadline.aborted) {
      throw new HubosError(
        'TOOL_FAILED',
        `${who} did not answer within ${req.timeoutMs} ms (${req.url.origin})`,
      );
    }
    if (HubosError.is(error)) throw error;
    throw new HubosError('TOOL_FAILED', `${who} could not reach ${req.url.origin}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

function statusError(req: JsonRequest, status: number, text: string): HubosError {
  const message = extractMessage(text) || `HTTP ${status}`;
  const hint = ((status === 401 || status === 403) && req.authHint) || req.statusHint?.(status);
  return new HubosError(
    'TOOL_FAILED',
    `websearch (${req.backend}) failed with HTTP ${status}: ${message}${hint ? `; ${hint}` : ''}`,
    { details: { backend: req.backend, status } },
  );
}

/** The message in an API error body: `{error}`, `{error:{message|detail}}`, `{detail}`, `{detail:{error}}`, `{message}`. */
function extractMessage(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    for (const value of [body.error, body.detail, body.message]) {
      if (typeof value === 'string') return value;
      const inner = value as Record<string, unknown> | undefined;
      for (const key of ['message', 'detail', 'error']) {
        if (typeof inner?.[key] === 'string') return inner[key] as string;
      }
    }
  } catch {
    // An HTML error page or plain text: show its start.
  }
  return clip(text);
}

function clip(text: string, max = 200): string {
  const line = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

async function readText(body: Dispatcher.ResponseData['body'], max: number) {
  const parts: Buffer[] = [];
  let size = 0;
  let cut = false;
  try {
    for await (const chunk of body) {
      parts.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size > max) {
        cut = true;
        break;
      }
    }
  } finally {
    if (!body.destroyed) body.destroy();
  }
  return { text: Buffer.concat(parts).toString('utf8'), cut };
}
