import type { ProgressToken, ServerNotification } from '@modelcontextprotocol/sdk/types.js';

/**
 * Where a tool's `tc.progress(data)` goes when the client asked for progress (it sent a
 * `progressToken`): MCP progress notifications. `{ progress, total?, message? }` gives the client
 * those numbers; anything else is numbered as it comes (one more than the last), with the data as
 * the message (strings as they are, anything else as JSON). Undefined when the client did not ask.
 */
export function progressReporter(
  token: ProgressToken | undefined,
  send: (notification: ServerNotification) => Promise<void>,
): ((data: unknown) => void) | undefined {
  if (token === undefined) return undefined;
  let last = 0;
  return (data) => {
    const numbers = progressNumbers(data);
    const progress = numbers?.progress ?? last + 1;
    last = progress;
    const message = numbers ? numbers.message : typeof data === 'string' ? data : toJson(data);
    send({
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress,
        ...(numbers?.total !== undefined ? { total: numbers.total } : {}),
        ...(message ? { message } : {}),
      },
    }).catch(() => undefined); // the client may be gone: the tool goes on
  };
}

/** The MCP numbers in `{ progress, total?, message? }`, when that is what the tool passed. */
function progressNumbers(data: unknown): { progress: number; total?: number; message?: string } | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { progress, total, message } = data as Record<string, unknown>;
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return undefined;
  return {
    progress,
    ...(typeof total === 'number' && Number.isFinite(total) ? { total } : {}),
    ...(typeof message === 'string' ? { message } : {}),
  };
}

function toJson(data: unknown): string | undefined {
  try {
    return JSON.stringify(data);
  } catch {
    return undefined;
  }
}
