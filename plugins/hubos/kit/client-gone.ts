import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';

/**
 * Calls `fn` if the client goes away before the response is finished. On Node it watches the
 * response socket: reading `c.req.raw.signal` would make @hono/node-server build a full Request
 * per call, which costs more than a whole agent run. Returns the function that stops watching.
 */
export function onClientGone(c: Context, fn: () => void): () => void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing) {
    const closed = () => {
      if (!outgoing.writableFinished) fn();
    };
    outgoing.once('close', closed);
    return () => outgoing.off('close', closed);
  }
  const signal = c.req.raw.signal;
  signal.addEventListener('abort', fn, { once: true });
  return () => signal.removeEventListener('abort', fn);
}
