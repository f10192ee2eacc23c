import {
  type AddressGuard,
  AddressRefusedError,
  errorMessage,
  guardedAgent,
  HubosError,
} from '../../../core/index.ts';
import { readBody } from './body.ts';
import { redirectTarget } from './redirect.ts';
import { checkUrl } from './url-rule.ts';

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
 * One tool call: every hop (the first request and each redirect) has its URL checked, and each
 * connection its address, by the guard, connecting to the address it checked. The whole call,
 * body included, shares one deadline.
 */
export async function guardedFetch(
  first: OutgoingRequest,
  guard: AddressGuard,
  limits: FetchLimits,
  signal: AbortSignal,
): Promise<HttpToolResult> {
  const agent = await guardedAgent(guard, { timeoutMs: limits.timeoutMs });
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const both = AbortSignal.any([signal, deadline]);
  let current = first;
  try {
    for (let redirects = 0; ; redirects++) {
      const via = current === first ? undefined : current.url.href;
      const response = await checked(via, async () => {
        checkUrl(current.url);
        return agent.request({
          origin: current.url.origin,
          path: current.url.pathname + current.url.search,
          method: current.method as 'GET',
          headers: current.headers,
          body: current.body,
          signal: both,
        });
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

/**
 * Sends one hop; a refused URL or address becomes a model-readable error (`details.reason` is
 * `blocked` for an internal address), naming the redirect when it was one that led there.
 */
async function checked<T>(via: string | undefined, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    const refusal =
      error instanceof AddressRefusedError
        ? new HubosError('TOOL_FAILED', error.message, {
            ...(error.reason === 'blocked' ? { details: { reason: 'blocked' } } : {}),
          })
        : error;
    if (!via || !HubosError.is(refusal)) throw refusal;
    throw new HubosError('TOOL_FAILED', `redirect to ${via} refused: ${refusal.message}`, {
      details: refusal.details,
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
