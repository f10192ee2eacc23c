import { randomUUID } from 'node:crypto';
import type { Message, Part, StreamResponse } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, describe, expect, it } from 'vitest';
import { BLOB, PNG, serveAsker, WAV } from './asker.ts';
import { rpc, type Served, sseData, userText } from './helpers.ts';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const script = [{ toolCalls: [{ name: 'picture', id: 'p1' }] }, 'Drawn.'];

/** The status message that carries the tool's result. */
function toolResultMessage(messages: (Message | undefined)[]): Message | undefined {
  return messages.find((message) => message?.metadata?.hubos === 'tool-result');
}

/** A part as plain facts: what it carries (bytes as base64), its media type, name and metadata. */
function facts(part: Part) {
  const content = part.content!;
  const value = content.$case === 'raw' ? Buffer.from(content.value).toString('base64') : content.value;
  return {
    [content.$case]: value,
    mediaType: part.mediaType,
    filename: part.filename,
    metadata: part.metadata,
  };
}

describe('A2A: rich tool results as parts', () => {
  it('gives images, audio and blobs as file parts, links by URL, text as text and structured data as data', async () => {
    served = await serveAsker(script);
    const client = await new ClientFactory().createFromUrl(`${served.url}/a2a/asker/`);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(userText('draw'))) events.push(event);
    const said = toolResultMessage(
      events.map((e) => (e.payload?.$case === 'statusUpdate' ? e.payload.value.status?.message : undefined)),
    );
    const expected = [
      {
        data: expect.objectContaining({
          type: 'tool-result',
          id: 'p1',
          ok: true,
          output: { width: 2, height: 1 },
        }),
        mediaType: 'application/json',
        filename: '',
        metadata: undefined,
      },
      { text: 'Here it is.', mediaType: 'text/plain', filename: '', metadata: undefined },
      { raw: PNG, mediaType: 'image/png', filename: 'image', metadata: undefined },
      { raw: WAV, mediaType: 'audio/wav', filename: 'audio', metadata: undefined },
      { text: '# A', mediaType: 'text/markdown', filename: 'a.md', metadata: { uri: 'file:///notes/a.md' } },
      { raw: BLOB, mediaType: 'application/pdf', filename: 'b.pdf', metadata: { uri: 'file:///docs/b.pdf' } },
      { url: 'https://example.com/c.csv', mediaType: 'text/csv', filename: 'c.csv', metadata: undefined },
    ];
    expect(said?.parts.map(facts)).toEqual(expected);

    // Kept in the task's history as sent.
    const taskId = events[0]?.payload?.$case === 'task' ? events[0].payload.value.id : '';
    const task = await client.getTask({ tenant: '', id: taskId });
    expect(toolResultMessage(task.history)?.parts.map(facts)).toEqual(expected);
  });

  it('gives v0.3 clients file parts with bytes or a URI', async () => {
    served = await serveAsker(script);
    const streamed = await rpc(`${served.url}/a2a/asker`, {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/stream',
      params: {
        message: {
          kind: 'message',
          role: 'user',
          messageId: randomUUID(),
          parts: [{ kind: 'text', text: 'draw' }],
        },
      },
    });
    const messages = sseData(await streamed.text()).map(
      (data) =>
        (data as { result: { status?: { message?: { metadata?: { hubos?: string }; parts: unknown[] } } } })
          .result.status?.message,
    );
    const said = messages.find((message) => message?.metadata?.hubos === 'tool-result');
    expect(said?.parts).toEqual([
      expect.objectContaining({ kind: 'data' }),
      { kind: 'text', text: 'Here it is.' },
      { kind: 'file', file: { bytes: PNG, mimeType: 'image/png', name: 'image' } },
      { kind: 'file', file: { bytes: WAV, mimeType: 'audio/wav', name: 'audio' } },
      { kind: 'text', text: '# A', metadata: { uri: 'file:///notes/a.md' } },
      {
        kind: 'file',
        file: { bytes: BLOB, mimeType: 'application/pdf', name: 'b.pdf' },
        metadata: { uri: 'file:///docs/b.pdf' },
      },
      { kind: 'file', file: { uri: 'https://example.com/c.csv', mimeType: 'text/csv', name: 'c.csv' } },
    ]);
  });
});
