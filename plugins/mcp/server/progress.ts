import type { ProgressToken, ServerNotification } from '@modelcontextprotocol/sdk/types.js';

/**
 * Where a tool's `tc.progress(data)` goes when the client asked for progress (it sent a
 * `progressToken`): MCP progress notifications, numbered as they come, the data as the message
 * (strings as they are, anything else as JSON). Undefined when the client did not ask.
 */
export function progressReporter(
  token: ProgressToken | undefined,
  send: (notification: ServerNotification) => Promise<void>,
): ((data: unknown) => void) | undefined {
  if (token === undefined) return undefined;
  let step = 0;
  return (data) => {
    step += 1;
    const message = typeof data === 'string' ? data : toJson(data);
    send({
      method: 'notifications/progress',
      params: { progressToken: token, progress: step, ...(message ? { message } : {}) },
    }).catch(() => undefined); // the client may be gone: the tool goes on
  };
}

function toJson(data: unknown): string | undefined {
  try {
    return JSON.stringify(data);
  } catch {
    return undefined;
  }
}
