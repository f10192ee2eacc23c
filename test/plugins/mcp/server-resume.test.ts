import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionEventStore } from '../../../plugins/mcp/server/event-store.ts';
import { type Served, serveMcp } from './server-helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

const VERSION = '2025-11-25';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** A raw MCP session: its id, and requests that carry it. */
async function openSession(url: string) {
  const post = (body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': VERSION,
        ...headers,
      },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  const init = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const id = init.headers.get('mcp-session-id')!;
  await init.body?.cancel();
  const session = { 'mcp-session-id': id };
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).body?.cancel();
  return {
    id,
    post: (body: unknown, signal?: AbortSignal) => post(body, session, signal),
    resume: (lastEventId: string) =>
      fetch(`${url}/mcp`, {
        headers: {
          accept: 'text/event-stream',
          'mcp-protocol-version': VERSION,
          'last-event-id': lastEventId,
          ...session,
        },
      }),
  };
}

interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** Reads SSE events off a response body as they come, until `until` says stop. */
async function readEvents(response: Response, until: (event: SseEvent) => boolean): Promise<SseEvent[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    buffered += value;
    let end = buffered.indexOf('\n\n');
    while (end !== -1) {
      const event: SseEvent = { data: '' };
      for (const line of buffered.slice(0, end).split('\n')) {
        const [field, ...rest] = line.split(':');
        const text = rest.join(':').trimStart();
        if (field === 'id') event.id = text;
        if (field === 'retry') event.retry = Number(text);
        if (field === 'data') event.data += text;
      }
      buffered = buffered.slice(end + 2);
      if (event.id !== undefined || event.data !== '') {
        events.push(event);
        if (until(event)) {
          await reader.cancel();
          return events;
        }
      }
      end = buffered.indexOf('\n\n');
    }
  }
}

describe('resuming a dropped MCP stream (Last-Event-ID)', () => {
  it("opens each stream with a priming event, and replays a call's answer after the client reconnects", async () => {
    served = await serveMcp();
    const session = await openSession(served.url);
    const dropped = new AbortController();
    const call = await session.post(
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'hold', arguments: {} } },
      dropped.signal,
    );
    expect(call.headers.get('content-type')).toContain('text/event-stream');
    const [priming] = await readEvents(call, () => true);
    expect(priming).toMatchObject({ data: '', retry: 1000, id: expect.stringMatching(/:\d+$/) });
    // The connection goes (a network change, a laptop lid), while the call runs on.
    dropped.abort();
    await served.probe.held.opened;
    served.probe.release.open();

    // Until the server has noticed the old connection is gone, the stream counts as taken (409).
    let resumed = await session.resume(priming!.id!);
    while (resumed.status === 409) {
      await resumed.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 20));
      resumed = await session.resume(priming!.id!);
    }
    expect(resumed.status).toBe(200);
    const events = await readEvents(resumed, (event) => event.data.includes('"id":7'));
    const answer = JSON.parse(events.at(-1)!.data) as Json;
    expect(answer).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'released' }] } });
    expect(events.at(-1)!.id).toMatch(/:\d+$/);
  });

  it("refuses a cursor this session never gave: another session's, or a made-up one", async () => {
    served = await serveMcp();
    const first = await openSession(served.url);
    const second = await openSession(served.url);
    const listed = await first.post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const events = await readEvents(listed, (event) => event.data.includes('"id":1'));
    const cursor = events[0]!.id!;

    for (const lastEventId of [cursor, 'made-up:1', 'nonsense', `${cursor.split(':')[0]}:99999`]) {
      const refused = await second.resume(lastEventId);
      expect(refused.status, lastEventId).toBe(400);
      await refused.body?.cancel();
    }
    // Its own session resumes from it (and hears the answer again).
    const own = await first.resume(cursor);
    expect(own.status).toBe(200);
    const again = await readEvents(own, (event) => event.data.includes('"id":1'));
    expect(JSON.parse(again.at(-1)!.data)).toMatchObject({ id: 1, result: { tools: expect.any(Array) } });
  });
});

describe('the session event store', () => {
  const message = (id: number, size = 0): JSONRPCMessage => ({
    jsonrpc: '2.0',
    id,
    result: { padding: 'x'.repeat(size) },
  });
  const replay = async (store: SessionEventStore, cursor: string) => {
    const sent: [string, JSONRPCMessage][] = [];
    await store.replayEventsAfter(cursor, {
      send: async (id, sentMessage) => {
        sent.push([id, sentMessage]);
      },
    });
    return sent;
  };

  it("replays a stream's events after the cursor, in order, and no other stream's", async () => {
    const store = new SessionEventStore({ maxEvents: 10, maxBytes: 10_000 });
    const priming = await store.storeEvent('a', {} as JSONRPCMessage);
    const a1 = await store.storeEvent('a', message(1));
    await store.storeEvent('b', message(2));
    const a3 = await store.storeEvent('a', message(3));
    expect(await store.getStreamIdForEventId(priming)).toBe('a');
    expect(await replay(store, priming)).toEqual([
      [a1, message(1)],
      [a3, message(3)],
    ]);
    expect(await replay(store, a1)).toEqual([[a3, message(3)]]);
    expect(await replay(store, a3)).toEqual([]);
  });

  it('keeps bounded memory, and refuses a cursor whose stream lost events after it', async () => {
    const store = new SessionEventStore({ maxEvents: 3, maxBytes: 1000 });
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push(await store.storeEvent('a', message(i)));
    // Events 1 and 2 were dropped: a client at 1 would miss 2, so it may not resume.
    expect(await store.getStreamIdForEventId(ids[0]!)).toBeUndefined();
    expect(await store.getStreamIdForEventId(ids[1]!)).toBe('a');
    expect((await replay(store, ids[1]!)).map(([, sent]) => (sent as { id: number }).id)).toEqual([3, 4, 5]);

    // Too big to keep: never kept, and the stream cannot be resumed from before it.
    const before = await store.storeEvent('a', message(6));
    await store.storeEvent('a', message(7, 2000));
    expect(await store.getStreamIdForEventId(before)).toBeUndefined();

    // Bytes count too: large events push older ones out.
    const bytes = new SessionEventStore({ maxEvents: 100, maxBytes: 1000 });
    const first = await bytes.storeEvent('b', message(1, 400));
    const second = await bytes.storeEvent('b', message(2, 400));
    await bytes.storeEvent('b', message(3, 400));
    await bytes.storeEvent('b', message(4, 400));
    expect(await bytes.getStreamIdForEventId(first)).toBeUndefined();
    expect((await replay(bytes, second)).map(([, sent]) => (sent as { id: number }).id)).toEqual([3, 4]);
    expect(await store.getStreamIdForEventId('unknown:1')).toBeUndefined();
  });
});
