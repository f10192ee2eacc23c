import { existsSync } from 'node:fs';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../../core/index.ts';
import type { TransportKind } from './transport-kind.ts';

/** Thrown when a start attempt runs out of time. */
export class StartTimeoutError extends Error {}

function causeOf(error: unknown): string | undefined {
  const cause = (error as { cause?: unknown })?.cause;
  return cause === undefined ? undefined : errorMessage(cause);
}

/** An error's message with its cause's, which says what `fetch failed` means (`connect ECONNREFUSED ...`). */
export function messageWithCause(error: unknown): string {
  const cause = causeOf(error);
  const message = errorMessage(error);
  return cause && !message.includes(cause) ? `${message}: ${cause}` : message;
}

/** Why a start attempt failed, in words that say what to check. */
export function startFailureReason(
  error: unknown,
  kind: TransportKind,
  target: string,
  cwd?: string,
): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT' && kind === 'stdio') {
    // spawn says ENOENT for a missing working folder too.
    if (cwd !== undefined && !existsSync(cwd))
      return `its working folder ${cwd} does not exist (check "cwd")`;
    return `cannot run "${target.split(' ')[0]}": not found (is it installed and on PATH?)`;
  }
  if (code === 'EACCES' && kind === 'stdio') return `cannot run "${target.split(' ')[0]}": permission denied`;
  if (error instanceof StartTimeoutError) return error.message;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return kind === 'stdio'
      ? 'the process exited before it finished starting'
      : 'the connection closed before the server answered initialize';
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return 'no answer in time (startTimeoutMs)';
  }
  if (kind === 'http' && error instanceof TypeError) {
    return `cannot reach ${target}: ${causeOf(error) ?? error.message}`;
  }
  if (kind === 'http' && error instanceof StreamableHTTPError && (error.code ?? 0) > 0) {
    const hint =
      error.code === 401 || error.code === 403
        ? ' (it wants authorization: let HubOS sign in, without "auth: false", or send a credential in "headers")'
        : '';
    return `the server answered HTTP ${error.code}${hint}: ${error.message.replace(/^Streamable HTTP error: /, '')}`;
  }
  return errorMessage(error);
}

/**
 * Whether a failed call means the HTTP connection is gone, rather than an answer from the server:
 * the request could not be sent (fetch's TypeError, a socket error), or the server no longer knows
 * the session (404). Any other HTTP status (413, 500...) is the server answering that one call.
 */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  if (error instanceof StreamableHTTPError) return error.code === 404;
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return error instanceof TypeError || typeof cause?.code === 'string';
}
