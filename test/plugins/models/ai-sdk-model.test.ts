import {
  APICallError,
  type LanguageModelV2,
  type LanguageModelV2CallOptions,
  type LanguageModelV2StreamPart,
  type LanguageModelV3StreamPart,
  type LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV3, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import {
  type AiSdkLanguageModel,
  fromAiSdk,
  HubosError,
  isAiSdkModel,
  isLanguageModel,
  isModelObject,
  type Message,
  type ModelRetry,
  toLanguageModel,
} from '../../../core/index.ts';
import { ScriptedModel } from '../../../testing/index.ts';
import { finish, mockModel, request, text, toolCall, usage } from './ai-sdk-helpers.ts';
import { collect, rejection } from './server.ts';

// Compile-time: the AI SDK's model classes of every spec fit HubOS's structural type.
const fits: AiSdkLanguageModel[] = [new MockLanguageModelV3(), new MockLanguageModelV4()];

describe('isAiSdkModel / toLanguageModel', () => {
  it('tells AI SDK models from HubOS models and from other objects', () => {
    const aiSdk = mockModel();
    const hubos = new ScriptedModel([]);
    expect(fits.every(isAiSdkModel)).toBe(true);
    expect(isAiSdkModel(aiSdk)).toBe(true);
    expect(isLanguageModel(aiSdk)).toBe(false);
    expect(isAiSdkModel(hubos)).toBe(false);
    expect(isModelObject(aiSdk) && isModelObject(hubos)).toBe(true);
    expect(isModelObject({ provider: 'x', modelId: 'y' })).toBe(false);
    expect(isAiSdkModel({ specificationVersion: 'v3', provider: 'x', modelId: 'y' })).toBe(false);
    expect(toLanguageModel(hubos)).toBe(hubos);
    const wrapped = toLanguageModel(aiSdk);
    expect(isLanguageModel(wrapped)).toBe(true);
    expect([wrapped.provider, wrapped.modelId]).toEqual(['mock.chat', 'mock-1']);
  });

  it('refuses a spec v1 model with MODEL_CONFIG, naming the model and the fix', () => {
    const v1 = { specificationVersion: 'v1', provider: 'old', modelId: 'm', doStream: async () => ({}) };
    const error = (() => {
      try {
        fromAiSdk(v1 as unknown as AiSdkLanguageModel);
      } catch (e) {
        return e as HubosError;
      }
    })();
    expect(error?.code).toBe('MODEL_CONFIG');
    expect(error?.message).toMatch(/old model "m".*v1.*upgrade the provider package/);
  });
});

describe('fromAiSdk: the stream', () => {
  it('streams text deltas, then the finish with v3 usage totals', async () => {
    const model = mockModel([...text('Hel', 'lo'), finish('stop', usage(12, 5))]);
    expect(await collect(fromAiSdk(model).stream(request()))).toEqual([
      { type: 'text-delta', delta: 'Hel' },
      { type: 'text-delta', delta: 'lo' },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 12, outputTokens: 5 } },
    ]);
  });

  it('streams a tool call: start, input deltas, then the whole call with parsed input', async () => {
    const model = mockModel([...toolCall('c1', 'add', '{"a":1,"b":2}'), finish('tool-calls')]);
    expect(await collect(fromAiSdk(model).stream(request()))).toEqual([
      { type: 'tool-call-start', id: 'c1', name: 'add' },
      { type: 'tool-call-delta', id: 'c1', delta: '{"a' },
      { type: 'tool-call-delta', id: 'c1', delta: '":1,"b":2}' },
      { type: 'tool-call', id: 'c1', name: 'add', input: { a: 1, b: 2 } },
      { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 10, outputTokens: 4 } },
    ]);
  });

  it('keeps two parallel calls of one turn apart, interleaved or not', async () => {
    const model = mockModel([
      { type: 'tool-input-start', id: 'a', toolName: 'weather' },
      { type: 'tool-input-start', id: 'b', toolName: 'time' },
      { type: 'tool-input-delta', id: 'b', delta: '{"tz":"UTC"}' },
      { type: 'tool-input-delta', id: 'a', delta: '{"city":"Oslo"}' },
      { type: 'tool-call', toolCallId: 'a', toolName: 'weather', input: '{"city":"Oslo"}' },
      { type: 'tool-call', toolCallId: 'b', toolName: 'time', input: '{"tz":"UTC"}' },
      finish('tool-calls'),
    ]);
    const chunks = await collect(fromAiSdk(model).stream(request()));
    expect(chunks.filter((c) => c.type === 'tool-call')).toEqual([
      { type: 'tool-call', id: 'a', name: 'weather', input: { city: 'Oslo' } },
      { type: 'tool-call', id: 'b', name: 'time', input: { tz: 'UTC' } },
    ]);
    expect(chunks.filter((c) => c.type === 'tool-call-start')).toHaveLength(2);
    expect(chunks.filter((c) => c.type === 'tool-call-delta').map((c) => c.id)).toEqual(['b', 'a']);
  });

  it('announces a call that arrives whole, keeps unparseable input raw and empty input as {}', async () => {
    const model = mockModel([
      { type: 'tool-call', toolCallId: 'x', toolName: 'add', input: '{"a":' },
      { type: 'tool-call', toolCallId: 'y', toolName: 'now', input: '' },
      finish('tool-calls'),
    ]);
    expect(await collect(fromAiSdk(model).stream(request()))).toEqual([
      { type: 'tool-call-start', id: 'x', name: 'add' },
      { type: 'tool-call', id: 'x', name: 'add', input: '{"a":' },
      { type: 'tool-call-start', id: 'y', name: 'now' },
      { type: 'tool-call', id: 'y', name: 'now', input: {} },
      { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 10, outputTokens: 4 } },
    ]);
  });

  it('skips reasoning, sources, files, metadata and calls the provider runs itself', async () => {
    const model = mockModel([
      { type: 'response-metadata', id: 'r1', modelId: 'mock-1' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'thinking' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'source', sourceType: 'url', id: 's', url: 'https://example.com' },
      { type: 'file', mediaType: 'image/png', data: 'AAAA' },
      { type: 'tool-input-start', id: 'p', toolName: 'web_search', providerExecuted: true },
      { type: 'tool-input-delta', id: 'p', delta: '{}' },
      { type: 'tool-call', toolCallId: 'p', toolName: 'web_search', input: '{}', providerExecuted: true },
      { type: 'raw', rawValue: {} },
      ...text('answer'),
      finish('stop'),
    ]);
    expect(await collect(fromAiSdk(model).stream(request()))).toEqual([
      { type: 'text-delta', delta: 'answer' },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 4 } },
    ]);
  });

  it.each([
    ['stop', false, 'stop'],
    ['length', false, 'length'],
    ['content-filter', false, 'content-filter'],
    ['tool-calls', true, 'tool-calls'],
    ['tool-calls', false, 'other'],
    ['other', false, 'other'],
  ] as const)('maps finish reason %s (with calls: %s) to %s', async (reason, withCalls, expected) => {
    const calls = withCalls ? toolCall('c', 't', '{}') : [];
    const model = mockModel([...calls, finish(reason)]);
    const chunks = await collect(fromAiSdk(model).stream(request()));
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: expected });
  });

  it.each([
    ['an error finish', [finish('error')], /stopped on an error/],
    [
      'an interrupted stream',
      [{ type: 'finish', finishReason: { unified: 'interrupted', raw: undefined }, usage: usage(1, 1) }],
      /ended before the answer was complete/,
    ],
    ['no finish at all', text('partial'), /ended before the answer was complete/],
  ] as const)('fails %s with MODEL_RESPONSE_INVALID', async (_name, parts, message) => {
    const model = new MockLanguageModelV4({
      provider: 'mock.chat',
      modelId: 'mock-1',
      doStream: { stream: convertArrayToReadableStream(parts as LanguageModelV4StreamPart[]) },
    });
    const error = (await rejection(collect(fromAiSdk(model).stream(request())))) as HubosError;
    expect(error).toBeInstanceOf(HubosError);
    expect(error.code).toBe('MODEL_RESPONSE_INVALID');
    expect(error.message).toMatch(message);
    expect(error.message).toContain('mock.chat');
  });

  it('reads the prompt tokens read from the cache: v3 inputTokens.cacheRead, v2 cachedInputTokens', async () => {
    const cached = usage(12, 5);
    cached.inputTokens.cacheRead = 8;
    const model = mockModel([...text('hi'), finish('stop', cached)]);
    expect((await collect(fromAiSdk(model).stream(request()))).at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 12, outputTokens: 5, cachedInputTokens: 8 },
    });
    const v2 = v2Model([
      {
        type: 'finish',
        finishReason: 'stop',
        usage: { inputTokens: 9, outputTokens: 1, totalTokens: 10, cachedInputTokens: 4 },
      },
    ]);
    expect((await collect(fromAiSdk(v2.model).stream(request()))).at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 9, outputTokens: 1, cachedInputTokens: 4 },
    });
  });

  it('reads a spec v2 model: string finish reasons and flat usage', async () => {
    const v2 = v2Model([
      { type: 'text-delta', id: 't', delta: 'old' },
      {
        type: 'finish',
        finishReason: 'unknown',
        usage: { inputTokens: 3, outputTokens: undefined, totalTokens: 3 },
      },
    ]);
    expect(await collect(fromAiSdk(v2.model).stream(request()))).toEqual([
      { type: 'text-delta', delta: 'old' },
      { type: 'finish', finishReason: 'other', usage: { inputTokens: 3 } },
    ]);
  });
});

/** A hand-written spec v2 model (the AI SDK ships no v2 mock any more). */
function v2Model(parts: LanguageModelV2StreamPart[]) {
  const calls: LanguageModelV2CallOptions[] = [];
  const model: LanguageModelV2 = {
    specificationVersion: 'v2',
    provider: 'legacy.chat',
    modelId: 'legacy-1',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    doStream: async (options) => {
      calls.push(options);
      return { stream: convertArrayToReadableStream(parts) };
    },
  };
  return { model, calls };
}

const image = { type: 'image', data: 'iVBORw0K', mimeType: 'image/png' } as const;

const conversation: Message[] = [
  { role: 'user', content: 'Look at the chart.' },
  {
    role: 'assistant',
    content: 'Fetching.',
    toolCalls: [
      { id: 'c1', name: 'chart', input: { id: 7 } },
      { id: 'c2', name: 'stats', input: {} },
    ],
  },
  {
    role: 'tool',
    toolCallId: 'c1',
    name: 'chart',
    content: 'the chart\n[image image/png, 6 bytes]',
    parts: [{ type: 'text', text: 'the chart' }, image],
  },
  { role: 'tool', toolCallId: 'c2', name: 'stats', content: 'stats is down', isError: true },
  { role: 'assistant', content: 'Here it is.' },
  { role: 'user', content: 'Thanks.' },
];

describe('fromAiSdk: the request', () => {
  it('sends the system prompt, the conversation, tools, settings and the abort signal (v3)', async () => {
    const model = mockModel([finish()]);
    const signal = new AbortController().signal;
    const inputSchema = { type: 'object', properties: { id: { type: 'number' } } } as const;
    await collect(
      fromAiSdk(model).stream(
        request({
          system: 'Be brief.',
          messages: conversation,
          tools: [{ name: 'chart', description: 'Draws a chart.', inputSchema }],
          maxTokens: 300,
          temperature: 0.2,
          signal,
        }),
      ),
    );
    const sent = model.doStreamCalls[0]!;
    expect(sent.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Look at the chart.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Fetching.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'chart', input: { id: 7 } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'stats', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'chart',
            output: { type: 'text', value: 'the chart\n[image image/png, 6 bytes]' },
          },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'stats',
            output: { type: 'error-text', value: 'stats is down' },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Here it is.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] },
    ]);
    expect(sent.tools).toEqual([
      { type: 'function', name: 'chart', description: 'Draws a chart.', inputSchema },
    ]);
    expect(sent.maxOutputTokens).toBe(300);
    expect(sent.temperature).toBe(0.2);
    expect(sent.abortSignal).toBe(signal);
  });

  it('leaves out tools and settings the request does not have', async () => {
    const model = mockModel([finish()]);
    await collect(fromAiSdk(model).stream(request()));
    const sent = model.doStreamCalls[0]!;
    expect(sent.prompt).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    expect('tools' in sent || 'maxOutputTokens' in sent || 'temperature' in sent).toBe(false);
  });

  const resultOf = (prompt: readonly unknown[]) =>
    (prompt[2] as { content: { output: unknown }[] }).content[0]!.output;

  it('with toolImages, sends tool-result images in each spec own shape', async () => {
    const v4 = new MockLanguageModelV4({
      // v3 and v4 finish parts are the same shape.
      doStream: { stream: convertArrayToReadableStream([finish() as LanguageModelV4StreamPart]) },
    });
    const v3 = mockModel([finish()]);
    const v2 = v2Model([{ type: 'finish', finishReason: 'stop', usage: usage2 }]);
    for (const model of [v4, v3, v2.model])
      await collect(fromAiSdk(model, { toolImages: true }).stream(request({ messages: conversation })));
    const text = { type: 'text', text: 'the chart' };
    expect(resultOf(v4.doStreamCalls[0]!.prompt)).toEqual({
      type: 'content',
      value: [text, { type: 'file', data: { type: 'data', data: image.data }, mediaType: 'image/png' }],
    });
    expect(resultOf(v3.doStreamCalls[0]!.prompt)).toEqual({
      type: 'content',
      value: [text, { type: 'image-data', data: image.data, mediaType: 'image/png' }],
    });
    expect(resultOf(v2.calls[0]!.prompt)).toEqual({
      type: 'content',
      value: [text, { type: 'media', data: image.data, mediaType: 'image/png' }],
    });
  });
});

const usage2 = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

const apiError = (statusCode: number | undefined, message: string, headers?: Record<string, string>) =>
  new APICallError({
    message,
    url: 'https://api.example.com/v1/chat/completions',
    requestBodyValues: {},
    ...(statusCode !== undefined && { statusCode }),
    ...(headers && { responseHeaders: headers }),
    responseBody: JSON.stringify({ error: { message } }),
  });

function failingModel(...errors: unknown[]) {
  return new MockLanguageModelV3({
    provider: 'mock.chat',
    modelId: 'mock-1',
    doStream: async () => {
      const error = errors.shift();
      if (error) throw error;
      return { stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([...text('ok'), finish()]) };
    },
  });
}

describe('fromAiSdk: errors', () => {
  it.each([
    [401, /mock\.chat model "mock-1": the API key was rejected \(HTTP 401: Invalid key\); check the key/],
    [429, /mock\.chat model "mock-1": rate limited \(HTTP 429: Invalid key\); wait and try again/],
    [500, /mock\.chat model "mock-1": the provider failed \(HTTP 500: Invalid key\); try again later/],
    [400, /the request was refused \(HTTP 400: Invalid key\); check the model id/],
  ])('maps an APICallError with HTTP %i to MODEL_HTTP_ERROR', async (status, message) => {
    const model = failingModel(apiError(status, 'Invalid key'));
    const error = (await rejection(
      collect(fromAiSdk(model, { maxRetries: 0 }).stream(request())),
    )) as HubosError;
    expect(error).toBeInstanceOf(HubosError);
    expect(error.code).toBe('MODEL_HTTP_ERROR');
    expect(error.message).toMatch(message);
    expect(error.details).toMatchObject({ provider: 'mock.chat', model: 'mock-1', status });
    expect(error.cause).toBeInstanceOf(APICallError);
  });

  it('says a connection that dropped mid-answer (a 2xx) dropped, rather than blaming the settings', async () => {
    const model = failingModel(apiError(200, 'Failed to process successful response'));
    const error = (await rejection(
      collect(fromAiSdk(model, { maxRetries: 0 }).stream(request())),
    )) as HubosError;
    expect(error.code).toBe('MODEL_HTTP_ERROR');
    expect(error.message).toContain('the connection dropped while the answer streamed in (HTTP 200');
    expect(error.message).not.toContain('check the model id');
  });

  it('fails with MODEL_RESPONSE_INVALID when doStream resolves without a stream', async () => {
    for (const answer of [{}, null]) {
      const model = {
        specificationVersion: 'v3',
        provider: 'odd',
        modelId: 'm',
        doStream: async () => answer,
      };
      const error = (await rejection(
        collect(fromAiSdk(model as never, { maxRetries: 0 }).stream(request())),
      )) as HubosError;
      expect(error).toBeInstanceOf(HubosError);
      expect(error.code).toBe('MODEL_RESPONSE_INVALID');
      expect(error.message).toContain('doStream() resolved without a ReadableStream');
    }
  });

  it('retries retryable failures before the stream starts, then gives up naming the retries', async () => {
    const recovered = failingModel(apiError(429, 'slow down'), apiError(503, 'busy'));
    const retries: ModelRetry[] = [];
    const chunks = await collect(
      fromAiSdk(recovered, { retryBaseMs: 0 }).stream(request({ onRetry: (retry) => retries.push(retry) })),
    );
    expect(chunks[0]).toEqual({ type: 'text-delta', delta: 'ok' });
    expect(recovered.doStreamCalls).toHaveLength(3);
    // Each retry is reported, with why, so the run can tell it (a model-retry event).
    expect(retries.map((r) => [r.attempt, r.reason.code, r.reason.status])).toEqual([
      [1, 'MODEL_HTTP_ERROR', 429],
      [2, 'MODEL_HTTP_ERROR', 503],
    ]);

    const failing = failingModel(apiError(500, 'a'), apiError(500, 'b'), apiError(500, 'c'));
    const error = (await rejection(
      collect(fromAiSdk(failing, { retryBaseMs: 0, maxRetries: 2 }).stream(request())),
    )) as HubosError;
    expect(error.message).toMatch(/HTTP 500: c\).*\(gave up after 2 retries\)/);
    expect(failing.doStreamCalls).toHaveLength(3);

    const refused = failingModel(apiError(401, 'bad key'));
    await rejection(collect(fromAiSdk(refused, { retryBaseMs: 0 }).stream(request())));
    expect(refused.doStreamCalls).toHaveLength(1);
  });

  it('maps a connection failure, a timeout and a missing key', async () => {
    const cases: [unknown, string, RegExp][] = [
      [apiError(undefined, 'fetch failed'), 'MODEL_HTTP_ERROR', /connection failed: fetch failed/],
      [
        new DOMException('The operation timed out.', 'TimeoutError'),
        'MODEL_TIMEOUT',
        /did not answer in time/,
      ],
      [
        Object.assign(new Error('API key is missing. Pass it using the apiKey parameter.'), {
          name: 'AI_LoadAPIKeyError',
        }),
        'MODEL_CONFIG',
        /mock-1": API key is missing/,
      ],
    ];
    for (const [thrown, code, message] of cases) {
      const model = failingModel(thrown);
      const error = (await rejection(
        collect(fromAiSdk(model, { maxRetries: 0 }).stream(request())),
      )) as HubosError;
      expect([error.code, error.message]).toEqual([code, expect.stringMatching(message)]);
    }
  });

  it('fails on an error stream part, after the text before it', async () => {
    const overloaded = { type: 'overloaded_error', message: 'Overloaded' };
    for (const [error, message, status] of [
      [overloaded, /mock\.chat model "mock-1" reported an error \(overloaded_error\): Overloaded/, undefined],
      [apiError(500, 'upstream broke'), /HTTP 500: upstream broke/, 500],
    ] as const) {
      const model = mockModel([...text('par'), { type: 'error', error }, finish('error')]);
      const seen: unknown[] = [];
      const failure = (await rejection(
        (async () => {
          for await (const chunk of fromAiSdk(model).stream(request())) seen.push(chunk);
        })(),
      )) as HubosError;
      expect(seen).toEqual([{ type: 'text-delta', delta: 'par' }]);
      expect(failure.code).toBe('MODEL_HTTP_ERROR');
      expect(failure.message).toMatch(message);
      expect(failure.details?.status).toBe(status);
    }
  });
});

describe('fromAiSdk: abort', () => {
  it('ends a stream the model keeps open with the abort reason, and cancels it', async () => {
    let cancelled: unknown;
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'first' });
          },
          cancel(reason) {
            cancelled = reason;
          },
        }),
      }),
    });
    const controller = new AbortController();
    const reason = new HubosError('RUN_CANCELLED', 'stopped by the test');
    const seen: unknown[] = [];
    const error = await rejection(
      (async () => {
        for await (const chunk of fromAiSdk(model).stream(request({ signal: controller.signal }))) {
          seen.push(chunk);
          controller.abort(reason);
        }
      })(),
    );
    expect(seen).toEqual([{ type: 'text-delta', delta: 'first' }]);
    expect(error).toBe(reason);
    expect(cancelled).toBe(reason);
    expect(model.doStreamCalls[0]!.abortSignal?.aborted).toBe(true);
  });

  it('stops waiting for a doStream that ignores the signal, and does not retry once aborted', async () => {
    const model = new MockLanguageModelV3({ doStream: () => new Promise(() => undefined) });
    const controller = new AbortController();
    const pending = collect(fromAiSdk(model).stream(request({ signal: controller.signal })));
    controller.abort(new Error('cancelled'));
    expect(((await rejection(pending)) as Error).message).toBe('cancelled');
    expect(model.doStreamCalls).toHaveLength(1);
  });
});
