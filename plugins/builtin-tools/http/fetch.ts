import { errorMessage, HubosError } from '../../../core/index.ts';
import { readBody } from './body.ts';
import type { HostGuard, PinnedAddress } from './guard.ts';
import { pinnedAgent } from './pinned-agent.ts';
import { redirectTarget } from './redirect.ts';

export interface OutgoingRequest {
  method: string;
  url: URL;
  /** Lowercase header names. */
  headers: Record<string, string>;
  body?: string;
}

export interface FetchLimits {
  timeoutMs: number;
  maxBodyBytes: number;
  maxRedirects: number;
}

/** What an http_* tool returns to the model. */
export interface HttpToolResult {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  truncated: boolean;
  /** The URL that answered, after redirects. */
  url: string;
}

/**
 * One tool call: every hop (the first request and each redirect) is checked by the guard and
 * connects to the address it checked. The whole call, body included, shares one deadline.
 */
export async function guardedFetch(
  first: OutgoingRequest,
  guard: HostGuard,
  limits: FetchLimits,
  signal: AbortSignal,
): Promise<HttpToolResult> {
  const pins = new Map<string, PinnedAddress[]>();
  const agent = await pinnedAgent(pins, limits.timeoutMs);
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const both = AbortSignal.any([signal, deadline]);
  let current = first;
  try {
    for (let redirects = 0; ; redirects++) {
      const via = current === first ? undefined : current.url.href;
      pins.set(current.url.hostname, await checked(guard, current.url, both, via));
      const response = await agent.request({
        origin: current.url.origin,
        path: current.url.pathname + current.url.search,
        method: current.method as 'GET',
        headers: current.headers,
        body: current.body,
        signal: both,
      });
      const headers = flattenHeaders(response.headers);
      const next = redirectTarget(current, response.statusCode, headers.location);
      if (next) {
        // Drain a small redirect body so the connection can be reused; a large one is cut off.
        await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
        if (redirects >= limits.maxRedirects) {
          throw new HubosError(
            'TOOL_FAILED',
            `too many redirects: stopped after ${limits.maxRedirects} (${current.url.href} redirects again to ${next.url.href})`,
          );
        }
        current = next;
        continue;
      }
      const { body, truncated } = await readBody(response.body, headers, limits.maxBodyBytes);
      return { status: response.statusCode, headers, body, truncated, url: current.url.href };
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (deadline.aborted) {
      throw new HubosError(
        'TOOL_FAILED',
        `timed out after ${limits.timeoutMs} ms (${current.method} ${current.url.href}); pass a larger timeout if the server is slow`,
      );
    }
    if (HubosError.is(error)) throw error;
    throw new HubosError('TOOL_FAILED', `${current.method} ${current.url.href} failed: ${describe(error)}`, {
      cause: error,
    });
  } finally {
    await agent.destroy().catch(() => {});
  }
}

/** Runs the guard, naming the redirect when it was one that led to a refused host. */
async function checked(guard: HostGuard, url: URL, signal: AbortSignal, via: string | undefined) {
  try {
    return await guard.check(url, signal);
  } catch (error) {
    if (!via || !HubosError.is(error)) throw error;
    throw new HubosError('TOOL_FAILED', `redirect to ${via} refused: ${error.message}`, {
      details: error.details,
    });
  }
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

// undici puts the socket's error code on the error or on its cause.
function describe(error: unknown): string {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return `${errorMessage(e)} [${code}]`;
  }
  return errorMessage(error);
}
