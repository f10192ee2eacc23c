import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
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
  /**
   * HTTP with OAuth: the server wants (more) authorization for this call and a person is asked;
   * resolves once they granted it (the call is then sent again), false when nobody is being asked.
   */
  authorize?: (signal: AbortSignal) => Promise<boolean>;
  /** The call went through (what was granted is accepted). */
  onSuccess?: () => void;
  /** The tool runs only as a task (`execution.taskSupport: 'required'`): called as one, its result awaited. */
  task?: boolean;
}

/** How many times one call waits for an authorization (step-up) and is sent again. */
const MAX_AUTHORIZATIONS_PER_CALL = 2;

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
  const { signal } = options;
  // The SDK adds an abort listener per request and never removes it: give it a signal of this call
  // only, so listeners do not pile up on a run's signal (each add scans them all) or outlive the call.
  const call = new AbortController();
  const relay = () => call.abort(signal.reason);
  if (signal.aborted) relay();
  else signal.addEventListener('abort', relay, { once: true });
  let result: CallToolResult;
  try {
    result = await sendCall(client, tool, input, call.signal, options);
  } finally {
    signal.removeEventListener('abort', relay);
  }
  options.onSuccess?.();
  if (result.isError) {
    throw new HubosError(
      'TOOL_FAILED',
      resultText(result) || 'the tool reported an error without saying why',
    );
  }
  return callOutput(result);
}

/** The call, sent again after each authorization the server asked for (at most a few). */
async function sendCall(
  client: Client,
  tool: string,
  input: Record<string, unknown>,
  signal: AbortSignal,
  options: CallOptions,
): Promise<CallToolResult> {
  for (let authorizations = 0; ; authorizations++) {
    try {
      const request = { signal, timeout: options.timeoutMs };
      return options.task
        ? await callAsTask(client, tool, input, request)
        : ((await client.callTool({ name: tool, arguments: input }, undefined, request)) as CallToolResult);
    } catch (error) {
      if (signal.aborted) throw error;
      const name = `MCP server "${options.server}"`;
      if (!(error instanceof UnauthorizedError) || !options.authorize)
        throw new HubosError('TOOL_FAILED', callFailure(error, options));
      if (authorizations >= MAX_AUTHORIZATIONS_PER_CALL)
        throw new HubosError(
          'TOOL_FAILED',
          `${name} still asks for authorization after ${authorizations} grants for this call`,
        );
      let granted: boolean;
      try {
        granted = await options.authorize(signal);
      } catch (why) {
        if (signal.aborted) throw why;
        throw new HubosError(
          'TOOL_FAILED',
          `${name} needs authorization for this call, which was not completed: ${errorMessage(why)}`,
        );
      }
      if (!granted) throw new HubosError('TOOL_FAILED', callFailure(error, options));
    }
  }
}

/**
 * A task tool's call: the task is created, followed to its end, and its result (or error) returned.
 * The whole call, polling included, ends at `timeoutMs` or when the signal aborts, whatever poll
 * interval the server asks for (the SDK's polling sleeps that long before it looks at the signal).
 */
async function callAsTask(
  client: Client,
  tool: string,
  input: Record<string, unknown>,
  request: { signal: AbortSignal; timeout: number },
): Promise<CallToolResult> {
  const deadline = AbortSignal.any([request.signal, AbortSignal.timeout(request.timeout)]);
  const stream = client.experimental.tasks.callToolStream({ name: tool, arguments: input }, undefined, {
    ...request,
    signal: deadline,
  });
  const followed = (async () => {
    for await (const message of stream) {
      if (message.type === 'result') return message.result as CallToolResult;
      if (message.type === 'error') throw message.error;
    }
    throw new McpError(ErrorCode.InternalError, `the task of tool "${tool}" ended without a result`);
  })();
  let stop: () => void = () => undefined;
  const stopped = new Promise<never>((_resolve, reject) => {
    stop = () =>
      reject(
        request.signal.aborted
          ? request.signal.reason
          : new McpError(ErrorCode.RequestTimeout, `the task of tool "${tool}" did not end in time`),
      );
    if (deadline.aborted) stop();
    else deadline.addEventListener('abort', stop, { once: true });
  });
  followed.catch(() => undefined); // settled after the race was lost: nobody waits for it then
  try {
    return await Promise.race([followed, stopped]);
  } finally {
    deadline.removeEventListener('abort', stop);
  }
}

function callFailure(error: unknown, options: CallOptions): string {
  const name = `MCP server "${options.server}"`;
  if (error instanceof UnauthorizedError)
    return `${name} refused the call: it needs authorization HubOS could not get (${errorMessage(error) || 'unauthorized'})`;
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
    case 'authorizing':
      // Not the URL: it is for the operator (the log, the server's status), not for a model to pass on.
      return `${name} is not connected: it waits for someone to authorize HubOS (see HubOS's log or the server's status)`;
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
