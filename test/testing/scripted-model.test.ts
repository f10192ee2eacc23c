import { describe, expect, it } from 'vitest';
import { isLanguageModel, type ModelChunk, type ModelRequest } from '../../core/index.ts';
import { ScriptedModel } from '../../testing/index.ts';
import { expectHubosRejection } from '../core/helpers.ts';

const request = (content = 'hi', signal = new AbortController().signal): ModelRequest => ({
  messages: [{ role: 'user', content }],
  tools: [],
  signal,
});

async function collect(stream: AsyncIterable<ModelChunk>): Promise<ModelChunk[]> {
  const chunks: ModelChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('ScriptedModel', () => {
  it('is a LanguageModel of provider "scripted"', () => {
    const model = new ScriptedModel([], { modelId: 'm-1' });
    expect(isLanguageModel(model)).toBe(true);
    expect(model.provider).toBe('scripted');
    expect(model.modelId).toBe('m-1');
    expect(new ScriptedModel().modelId).toBe('scripted');
  });

  it('streams a text answer word by word, then finishes with default usage', async () => {
    const model = new ScriptedModel(['Hello there, world.']);
    expect(await collect(model.stream(request()))).toEqual([
      { type: 'text-delta', delta: 'Hello ' },
      { type: 'text-delta', delta: 'there, ' },
      { type: 'text-delta', delta: 'world.' },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 5 } },
    ]);
  });

  it('streams tool calls with generated ids unless given, and finishes with tool-calls', async () => {
    const model = new ScriptedModel([
      {
        text: 'Checking.',
        toolCalls: [{ name: 'a' }, { name: 'b', input: { x: 1 }, id: 'mine' }, { name: 'c' }],
        usage: { inputTokens: 1, outputTokens: 2 },
      },
    ]);
    expect(await collect(model.stream(request()))).toEqual([
      { type: 'text-delta', delta: 'Checking.' },
      { type: 'tool-call-start', id: 'call_1', name: 'a' },
      { type: 'tool-call', id: 'call_1', name: 'a', input: {} },
      { type: 'tool-call-start', id: 'mine', name: 'b' },
      { type: 'tool-call', id: 'mine', name: 'b', input: { x: 1 } },
      { type: 'tool-call-start', id: 'call_2', name: 'c' },
      { type: 'tool-call', id: 'call_2', name: 'c', input: {} },
      { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 1, outputTokens: 2 } },
    ]);
  });

  it('uses a given finish reason', async () => {
    const model = new ScriptedModel([{ text: 'cut', finishReason: 'length' }]);
    const chunks = await collect(model.stream(request()));
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'length' });
  });

  it('streams exact chunks in chunks mode', async () => {
    const chunks: ModelChunk[] = [
      { type: 'tool-call-start', id: 'x', name: 't' },
      { type: 'tool-call-delta', id: 'x', delta: '{"a"' },
      { type: 'tool-call', id: 'x', name: 't', input: '{"a"' },
      { type: 'finish', finishReason: 'other' },
    ];
    const model = new ScriptedModel([{ chunks, text: 'ignored' }]);
    expect(await collect(model.stream(request()))).toEqual(chunks);
  });

  it('records every request, with a copy of its messages', async () => {
    const model = new ScriptedModel(['one', 'two']);
    const first = request('first');
    await collect(model.stream(first));
    first.messages.push({ role: 'assistant', content: 'added later' });
    await collect(model.stream({ ...request('second'), system: 'sys' }));
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]!.messages).toEqual([{ role: 'user', content: 'first' }]);
    expect(model.requests[1]).toMatchObject({
      system: 'sys',
      messages: [{ role: 'user', content: 'second' }],
    });
  });

  it('hands the request to function steps, sync or async', async () => {
    const seen: string[] = [];
    const model = new ScriptedModel([
      (req) => {
        seen.push(String(req.messages[0]!.content));
        return `echo ${req.messages[0]!.content}`;
      },
      async (req) => ({ text: `tools: ${req.tools.length}` }),
    ]);
    const text = async (req: ModelRequest) =>
      (await collect(model.stream(req))).map((c) => (c.type === 'text-delta' ? c.delta : '')).join('');
    expect(await text(request('ping'))).toBe('echo ping');
    expect(await text(request())).toBe('tools: 0');
    expect(seen).toEqual(['ping']);
  });

  it('assertConsumed fails while responses are left, and passes once all are used', async () => {
    const model = new ScriptedModel(['one', 'two']);
    expect(model.remaining).toBe(2);
    expect(() => model.assertConsumed()).toThrow(
      'ScriptedModel: 2 scripted response(s) were never requested (0 made)',
    );
    await collect(model.stream(request()));
    expect(() => model.assertConsumed()).toThrow('1 scripted response(s) were never requested (1 made)');
    await collect(model.stream(request()));
    expect(() => model.assertConsumed()).not.toThrow();
  });

  it('push() adds to the end of the script', async () => {
    const model = new ScriptedModel(['first']).push('second', { text: 'third' });
    expect(model.remaining).toBe(3);
  });

  it('fails clearly when the script is exhausted', async () => {
    const model = new ScriptedModel(['only']);
    await collect(model.stream(request()));
    const error = await expectHubosRejection(collect(model.stream(request())), 'MODEL_RESPONSE_INVALID');
    expect(error.message).toBe(
      'ScriptedModel: no scripted response left for call #2 (script more responses)',
    );
  });

  it('fails with a HubosError for a string error and with the given Error otherwise', async () => {
    const custom = new TypeError('custom');
    const model = new ScriptedModel([{ error: 'boom' }, { error: custom }]);
    const error = await expectHubosRejection(collect(model.stream(request())), 'MODEL_HTTP_ERROR');
    expect(error.message).toBe('boom');
    await expect(collect(model.stream(request()))).rejects.toBe(custom);
  });

  it('waits delayMs before answering', async () => {
    const model = new ScriptedModel([{ delayMs: 40, text: 'late' }]);
    const started = performance.now();
    await collect(model.stream(request()));
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
  });

  it('cuts a delay short when the signal aborts, with the abort reason', async () => {
    const model = new ScriptedModel([{ delayMs: 10_000, text: 'never' }]);
    const controller = new AbortController();
    const reason = new Error('stop now');
    setTimeout(() => controller.abort(reason), 20);
    const started = performance.now();
    await expect(collect(model.stream(request('hi', controller.signal)))).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses to answer on an aborted signal, delay or not', async () => {
    const model = new ScriptedModel([{ delayMs: 10, text: 'a' }, 'b']);
    await expect(collect(model.stream(request('hi', AbortSignal.abort())))).rejects.toMatchObject({
      name: 'AbortError',
    });
    await expect(collect(model.stream(request('hi', AbortSignal.abort())))).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});
