/**
 * The run route's SSE stream: framed as Hono's streamSSE frames the same events, the events of one
 * turn of the event loop in one chunk, and a client that cancels the stream is reported once.
 */
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { describe, expect, it } from 'vitest';
import { sseBatch } from '../../../plugins/hubos/kit/sse-batch.ts';

const events = [
  { id: '1', event: 'run-start', data: JSON.stringify({ type: 'run-start', text: 'a\nb' }) },
  { event: 'note', data: 'two\nlines\r\nhere' },
  { id: '3', event: 'run-finish', data: '{}' },
];

async function chunks(response: Response): Promise<string[]> {
  const decoder = new TextDecoder();
  const out: string[] = [];
  for await (const chunk of response.body!) out.push(decoder.decode(chunk));
  return out;
}

describe('sseBatch', () => {
  it('frames events as streamSSE does, with its headers, one chunk per turn', async () => {
    const app = new Hono()
      .get('/hono', (c) =>
        streamSSE(c, async (stream) => {
          for (const event of events) await stream.writeSSE(event);
        }),
      )
      .get('/batch', (c) => {
        const sse = sseBatch(() => undefined);
        for (const event of events.slice(0, 2)) sse.send(event);
        setTimeout(() => {
          sse.send(events[2]!);
          sse.close();
        }, 10);
        return sse.respond(c);
      });
    const hono = await app.request('/hono');
    const batch = await app.request('/batch');
    for (const name of ['content-type', 'cache-control', 'connection', 'transfer-encoding'])
      expect(batch.headers.get(name)).toBe(hono.headers.get(name));
    const got = await chunks(batch);
    expect(got.join('')).toBe((await chunks(hono)).join(''));
    // The two events sent together went out as one chunk, the last one after it.
    expect(got).toHaveLength(2);
  });

  it('calls onAbort once when the reader cancels, and drops what is sent after', async () => {
    let aborted = 0;
    const sse = sseBatch(() => aborted++);
    const response = await new Hono().get('/', (c) => sse.respond(c)).request('/');
    const reader = response.body!.getReader();
    sse.send({ event: 'a', data: '1' });
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('event: a\ndata: 1\n\n');
    await reader.cancel();
    await reader.cancel();
    sse.send({ event: 'b', data: '2' });
    sse.close();
    expect(aborted).toBe(1);
  });

  it('refuses an event name or id with a line break', () => {
    const sse = sseBatch(() => undefined);
    expect(() => sse.send({ event: 'a\nb', data: '' })).toThrow(/must not contain/);
    expect(() => sse.send({ event: 'a', id: '1\r', data: '' })).toThrow(/must not contain/);
  });
});
