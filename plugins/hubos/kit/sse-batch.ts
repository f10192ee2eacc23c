import type { Context } from 'hono';

/** An SSE stream written to as events happen: `send` never waits, `close` ends it. */
export interface SseBatch {
  /** The response that carries the stream (what is sent before it waits for it). */
  respond(c: Context): Response;
  send(event: { event: string; data: string; id?: string }): void;
  close(): void;
}

const encoder = new TextEncoder();

/**
 * An SSE response (the framing and headers of Hono's `streamSSE`) whose events sent in one turn
 * of the event loop go out as one chunk: a run's events come in bursts (a model answer, its tool
 * calls, the next step), and one write each cost a socket write and a stream read apiece. Nothing
 * waits on the client. `onAbort` is called if the client goes away before `close`.
 */
export function sseBatch(onAbort: () => void): SseBatch {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let pending = '';
  let scheduled: NodeJS.Immediate | undefined;
  let closed = false;
  const flush = () => {
    scheduled = undefined;
    if (pending === '' || closed) return;
    controller.enqueue(encoder.encode(pending));
    pending = '';
  };
  const body = new ReadableStream<Uint8Array>({
    start: (ctrl) => {
      controller = ctrl;
    },
    cancel: () => {
      if (closed) return;
      closed = true;
      clearImmediate(scheduled);
      onAbort();
    },
  });
  return {
    respond(c) {
      c.header('Transfer-Encoding', 'chunked');
      c.header('Content-Type', 'text/event-stream');
      c.header('Cache-Control', 'no-cache');
      c.header('Connection', 'keep-alive');
      return c.body(body);
    },
    send({ event, data, id }) {
      if (closed) return;
      for (const value of [event, id])
        if (value && /[\r\n]/.test(value))
          throw new Error(`an SSE event or id must not contain "\\r" or "\\n"`);
      // As Hono frames it: each line of the data on its own `data:` line, then the id.
      const lines = data.includes('\n') || data.includes('\r') ? data.split(/\r\n|\r|\n/) : [data];
      pending += `event: ${event}\n${lines.map((line) => `data: ${line}`).join('\n')}${id !== undefined ? `\nid: ${id}` : ''}\n\n`;
      scheduled ??= setImmediate(flush);
    },
    close() {
      if (closed) return;
      clearImmediate(scheduled);
      flush();
      closed = true;
      controller.close();
    },
  };
}
