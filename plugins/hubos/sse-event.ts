import type { SSEStreamingApi } from 'hono/streaming';

/** Writes run events to an SSE stream, each named by its `type` (clients listen per type). */
export function sseEventWriter(stream: SSEStreamingApi): (event: unknown) => Promise<void> {
  return (event) =>
    stream.writeSSE({
      event: String((event as { type?: string }).type ?? 'message'),
      data: JSON.stringify(event),
    });
}
