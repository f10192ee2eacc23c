import { describe, expect, it } from 'vitest';
import {
  fallbackModel,
  HubosError,
  type LanguageModel,
  type ModelChunk,
  type ModelRequest,
  type ModelRetry,
} from '../../../core/index.ts';
import { ResumedText } from '../../../core/model/resumed-text.ts';

type Attempt = ModelChunk[] | { chunks: ModelChunk[]; fail: HubosError };

/** A model that plays one scripted attempt per call: chunks, then maybe a failure. */
function scripted(modelId: string, attempts: Attempt[]): LanguageModel & { calls: number } {
  const model = {
    provider: 'fake',
    modelId,
    calls: 0,
    async *stream(): AsyncGenerator<ModelChunk> {
      const attempt = attempts[model.calls++];
      if (!attempt) throw new Error(`${modelId}: no attempt ${model.calls} scripted`);
      const { chunks, fail } = Array.isArray(attempt) ? { chunks: attempt, fail: undefined } : attempt;
      for (const chunk of chunks) yield chunk;
      if (fail) throw fail;
    },
  };
  return model;
}

const text = (...parts: string[]): ModelChunk[] => parts.map((delta) => ({ type: 'text-delta', delta }));
const stop: ModelChunk = { type: 'finish', finishReason: 'stop' };
const dropped = () =>
  new HubosError('MODEL_HTTP_ERROR', 'fake connection failed while reading the response', {
    details: { status: undefined },
  });
const down = (status: number) =>
  new HubosError('MODEL_HTTP_ERROR', `HTTP ${status}`, { details: { status } });

async function collect(model: LanguageModel, signal: AbortSignal) {
  const retries: ModelRetry[] = [];
  const request: ModelRequest = {
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    signal,
    onRetry: (retry) => retries.push(retry),
  };
  const chunks: ModelChunk[] = [];
  let error: unknown;
  try {
    for await (const chunk of model.stream(request)) chunks.push(chunk);
  } catch (e) {
    error = e;
  }
  const streamed = chunks.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])).join('');
  return { chunks, streamed, retries, error };
}

const quick = { retry: { baseMs: 1 } };

describe('fallbackModel', () => {
  it('retries a stream dropped mid-answer on the same model, passing on only what goes beyond the text sent', async () => {
    const main = scripted('main', [
      { chunks: text('The answer ', 'is'), fail: dropped() },
      [...text('The ans', 'wer is 42', '.'), stop],
    ]);
    const { streamed, retries, error } = await collect(
      fallbackModel([main], quick),
      new AbortController().signal,
    );
    expect(error).toBeUndefined();
    expect(streamed).toBe('The answer is 42.');
    expect(retries).toMatchObject([
      { model: 'fake:main', attempt: 1, next: 'fake:main', reason: { code: 'MODEL_HTTP_ERROR' } },
    ]);
  });

  it('fails over to the next model when one stays down, and names it as next', async () => {
    const main = scripted('main', [{ chunks: [], fail: down(503) }]);
    const backup = scripted('backup', [[...text('from backup'), stop]]);
    const { streamed, retries } = await collect(
      fallbackModel([main, backup], quick),
      new AbortController().signal,
    );
    expect(streamed).toBe('from backup');
    // Before the answer began a provider retries on its own: the chain fails over at once.
    expect(main.calls).toBe(1);
    expect(retries).toEqual([
      {
        model: 'fake:main',
        attempt: 1,
        reason: { code: 'MODEL_HTTP_ERROR', message: 'HTTP 503', status: 503 },
        delayMs: 0,
        next: 'fake:backup',
      },
    ]);
  });

  it('throws the last failure when every model is down', async () => {
    const chain = fallbackModel(
      [scripted('a', [{ chunks: [], fail: down(502) }]), scripted('b', [{ chunks: [], fail: down(429) }])],
      quick,
    );
    const { error, retries } = await collect(chain, new AbortController().signal);
    expect(HubosError.is(error) && error.details.status).toBe(429);
    expect(retries.map((r) => r.next)).toEqual(['fake:b']);
  });

  it('does not retry nor fail over a refused key, a bad request or a setup mistake', async () => {
    for (const failure of [down(401), down(400), new HubosError('MODEL_CONFIG', 'no API key')]) {
      const backup = scripted('backup', [[...text('never'), stop]]);
      const { error, retries } = await collect(
        fallbackModel([scripted('main', [{ chunks: [], fail: failure }]), backup], quick),
        new AbortController().signal,
      );
      expect(error).toBe(failure);
      expect(retries).toEqual([]);
      expect(backup.calls).toBe(0);
    }
  });

  it('retries a timeout on the same model up to maxRetries, then fails over', async () => {
    const timeout = () => new HubosError('MODEL_TIMEOUT', 'slow');
    const main = scripted('main', [
      { chunks: [], fail: timeout() },
      { chunks: [], fail: timeout() },
    ]);
    const backup = scripted('backup', [[...text('ok'), stop]]);
    const { streamed, retries } = await collect(
      fallbackModel([main, backup], { retry: { baseMs: 1, maxRetries: 1 } }),
      new AbortController().signal,
    );
    expect(streamed).toBe('ok');
    expect(retries.map((r) => [r.attempt, r.next])).toEqual([
      [1, 'fake:main'],
      [2, 'fake:backup'],
    ]);
  });

  it('after a whole tool call was passed on, a failure is final: the call cannot be taken back', async () => {
    const main = scripted('main', [
      { chunks: [{ type: 'tool-call', id: 'c1', name: 'echo', input: {} }], fail: dropped() },
    ]);
    const backup = scripted('backup', [[stop]]);
    const { error, chunks } = await collect(
      fallbackModel([main, backup], quick),
      new AbortController().signal,
    );
    expect(HubosError.is(error)).toBe(true);
    expect(chunks.filter((c) => c.type === 'tool-call')).toHaveLength(1);
    expect(backup.calls).toBe(0);
  });

  it('a tool call streamed live before its stream dropped is not started twice: the retry goes on with it', async () => {
    const start = (id: string): ModelChunk => ({ type: 'tool-call-start', id, name: 'search' });
    const args = (id: string, delta: string): ModelChunk => ({ type: 'tool-call-delta', id, delta });
    const model = scripted('main', [
      { chunks: [...text('Let me look.'), start('a1'), args('a1', '{"q":"he')], fail: dropped() },
      [
        ...text('Let me look.'),
        start('b1'),
        args('b1', '{"q":"hel'),
        args('b1', 'lo"}'),
        { type: 'tool-call', id: 'b1', name: 'search', input: { q: 'hello' } },
        { type: 'finish', finishReason: 'tool-calls' },
      ],
    ]);
    const { chunks, streamed, error } = await collect(
      fallbackModel([model], quick),
      new AbortController().signal,
    );
    expect(error).toBeUndefined();
    expect(streamed).toBe('Let me look.');
    const live = chunks.filter((chunk) => chunk.type !== 'text-delta');
    expect(live.filter((chunk) => chunk.type === 'tool-call-start')).toEqual([start('a1')]);
    // The arguments as streamed read as the call's, once.
    const streamedArgs = live.flatMap((chunk) =>
      chunk.type === 'tool-call-delta' && chunk.id === 'a1' ? [chunk.delta] : [],
    );
    expect(streamedArgs.join('')).toBe('{"q":"hello"}');
    expect(live.slice(-2)).toEqual([
      { type: 'tool-call', id: 'a1', name: 'search', input: { q: 'hello' } },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
  });

  it('a retried call whose arguments differ streams no more of them, and a new call starts as it is', async () => {
    const model = scripted('main', [
      {
        chunks: [
          { type: 'tool-call-start', id: 'a1', name: 'search' },
          { type: 'tool-call-delta', id: 'a1', delta: '{"q":"x' },
        ],
        fail: dropped(),
      },
      [
        { type: 'tool-call-start', id: 'b1', name: 'search' },
        { type: 'tool-call-delta', id: 'b1', delta: '{"q":"y"}' },
        { type: 'tool-call', id: 'b1', name: 'search', input: { q: 'y' } },
        { type: 'tool-call-start', id: 'b2', name: 'fetch' },
        { type: 'tool-call', id: 'b2', name: 'fetch', input: {} },
        { type: 'finish', finishReason: 'tool-calls' },
      ],
    ]);
    const { chunks } = await collect(fallbackModel([model], quick), new AbortController().signal);
    expect(chunks).toEqual([
      { type: 'tool-call-start', id: 'a1', name: 'search' },
      { type: 'tool-call-delta', id: 'a1', delta: '{"q":"x' },
      { type: 'tool-call', id: 'a1', name: 'search', input: { q: 'y' } },
      { type: 'tool-call-start', id: 'b2', name: 'fetch' },
      { type: 'tool-call', id: 'b2', name: 'fetch', input: {} },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
  });

  it('stops waiting as soon as the run is cancelled', async () => {
    const controller = new AbortController();
    const main = scripted('main', [{ chunks: text('part'), fail: dropped() }]);
    const chain = fallbackModel([main], { retry: { baseMs: 60_000 } });
    const pending = collect(chain, controller.signal);
    setTimeout(() => controller.abort(new Error('cancelled')), 20);
    const { error } = await pending;
    expect((error as Error).message).toBe('cancelled');
    expect(main.calls).toBe(1);
  });

  it('refuses an empty chain', () => {
    expect(() => fallbackModel([])).toThrow(/at least one model/);
  });
});

describe('ResumedText', () => {
  it('passes everything on the first attempt', () => {
    const t = new ResumedText();
    t.restart();
    expect([t.push('ab'), t.push('cd')]).toEqual(['ab', 'cd']);
  });

  it('skips a repeat split anywhere, and passes on what goes beyond it', () => {
    const t = new ResumedText();
    t.restart();
    t.push('Hello, wor');
    t.restart();
    expect([t.push('He'), t.push('llo, w'), t.push('orld'), t.push('!')]).toEqual(['', '', 'ld', '!']);
  });

  it('a retry worded differently follows the text sent after a paragraph break', () => {
    const t = new ResumedText();
    t.restart();
    t.push('Hello, wor');
    t.restart();
    expect(t.push('Hi')).toBe('\n\nHi');
    expect(t.push(' there')).toBe(' there');
  });

  it('a shorter repeat adds nothing', () => {
    const t = new ResumedText();
    t.restart();
    t.push('Hello, world');
    t.restart();
    expect(t.push('Hello')).toBe('');
    t.end();
    expect(t.push(' again')).toBe(' again');
  });
});
