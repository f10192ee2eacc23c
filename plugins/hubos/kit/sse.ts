import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import { errorMessage, HubosError } from '../../../core/index.ts';

/** Writes events to an SSE stream, each named by its `type` (clients listen per type). */
export function sseEventWriter(stream: SSEStreamingApi): (event: unknown) => Promise<void> {
  return (event) =>
    stream.writeSSE({
      event: String((event as { type?: string }).type ?? 'message'),
      data: JSON.stringify(event),
    });
}

/**
 * Answers with the events of `events` as Server-Sent Events, each named by its `type`. The first
 * event is awaited before the response starts, so an error raised before the work begins (bad input,
 * an unknown id) is still answered with its own status; a later error ends the stream with an
 * `error` event `{ type: 'error', error: { code, message } }`.
 */
export async function sseResponse(c: Context, events: AsyncIterable<unknown>): Promise<Response> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  return streamSSE(c, async (stream) => {
    const write = sseEventWriter(stream);
    // A client that leaves stops the iteration: a generator's finally runs and its work is cancelled.
    stream.onAbort(() => void iterator.return?.());
    try {
      for (let next = first; !next.done && !stream.aborted; next = await iterator.next())
        await write(next.value);
    } catch (error) {
      const code = HubosError.is(error) ? error.code : 'INTERNAL';
      await write({ type: 'error', error: { code, message: errorMessage(error) } });
    } finally {
      await iterator.return?.();
    }
  });
}
