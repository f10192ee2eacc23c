import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, HubosError } from '../../../core/index.ts';
import { callOutput, resultText } from './call-result.ts';
import { isConnectionError, messageWithCause } from './failure-reason.ts';
import type { McpServerState } from './status.ts';
import { formatDelay } from './timeouts.ts';

export interface CallOptions {
  server: string;
  signal: AbortSignal;
  timeoutMs: number;
  /** HTTP only: the call could not reach the server (the connection is to be redone). */
  onUnreachable?: (why: string) => void;
}

/**
 * Calls a server's tool. A result with `isError` throws its text (the model sees an error result);
 * a failure to get any result throws a message that says what happened. Cancelling rethrows as is.
 */
export async function callServerTool(
  client: Client,
  tool: string,
  input: Record<string, unknown>,
  options: CallOptions,
): Promise<unknown> {
  const { signal, timeoutMs } = options;
  // The SDK adds an abort listener per request and never removes it: give it a signal of this call
  // only, so listeners do not pile up on a run's signal (each add scans them all) or outlive the call.
  const call = new AbortController();
  const relay = () => call.abort(signal.reason);
  if (signal.aborted) relay();
  else signal.addEventListener('abort', relay, { once: true });
  let result: CallToolResult;
  try {
    result = (await client.callTool({ name: tool, arguments: input }, undefined, {
      signal: call.signal,
      timeout: timeoutMs,
    })) as CallToolResult;
  } catch (error) {
    if (signal.aborted) throw error;
    throw new HubosError('TOOL_FAILED', callFailure(error, options));
  } finally {
    signal.removeEventListener('abort', relay);
  }
  if (result.isError) {
    throw new HubosError(
      'TOOL_FAILED',
      resultText(result) || 'the tool reported an error without saying why',
    );
  }
  return callOutput(result);
}

function callFailure(error: unknown, options: CallOptions): string {
  const name = `MCP server "${options.server}"`;
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
    return `${name} did not answer within ${formatDelay(options.timeoutMs)} (timeoutMs)`;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)
    return `${name} closed the connection during the call; it is being restarted`;
  if (error instanceof McpError || !options.onUnreachable) return errorMessage(error);
  // The server answered this call with an HTTP error: the connection is fine, the call failed.
  if (!isConnectionError(error)) {
    const status = error instanceof StreamableHTTPError ? ` with HTTP ${error.code}` : '';
    return `${name} refused the call${status}: ${messageWithCause(error)}`;
  }
  const why = messageWithCause(error);
  options.onUnreachable(why);
  return `${name} could not be reached (${why}); reconnecting`;
}

/** Why a call cannot go to the server now, and what happens next. */
export function notConnectedMessage(
  server: string,
  state: McpServerState,
  facts: { error?: string | undefined; nextRetryAt?: number | undefined; failures: number },
): string {
  const name = `MCP server "${server}"`;
  switch (state) {
    case 'starting':
      return `${name} is not connected: it is starting${facts.error ? ` (last failure: ${facts.error})` : ''}`;
    case 'failed':
      return facts.nextRetryAt !== undefined
        ? `${name} is not connected: ${facts.error}; retrying in ${formatDelay(Math.max(0, facts.nextRetryAt - Date.now()))}`
        : `${name} is not connected: ${facts.error}; gave up after ${facts.failures} failed attempts (restart.maxAttempts)`;
    case 'stopped':
      return `${name} is disabled (enabled: false)`;
    case 'closed':
      return `${name} is closed: HubOS is shutting down`;
    default:
      return `${name} is not connected`;
  }
}
