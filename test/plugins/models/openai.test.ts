import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createKernel,
  type HubosConfig,
  HubosError,
  type Kernel,
  type ModelChunk,
  type ModelProvider,
  type ModelRequest,
  silentLogger,
} from '../../../core/index.ts';
import openai, { createOpenAIProvider, type OpenAIOptions } from '../../../plugins/models/openai.ts';
import {
  collect,
  type FakeServer,
  type Handler,
  rejection,
  sendEvent,
  sendJSON,
  sseHead,
  startServer,
} from './server.ts';

let server: FakeServer | undefined;
let provider: ModelProvider | undefined;
let kernel: Kernel | undefined;

afterEach(async () => {
  await kernel?.close();
  await provider?.close?.();
  await server?.close();
  vi.unstubAllEnvs();
  kernel = provider = server = undefined;
});

async function setup(handler: Handler, options: OpenAIOptions = {}) {
  server = await startServer(handler);
  provider = createOpenAIProvider({
    baseURL: `${server.url}/v1`,
    apiKey: 'sk-test',
    retryBaseMs: 1,
    ...options,
  });
  return { server, model: provider.languageModel('gpt-4.1-mini') };
}

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  signal: AbortSignal.timeout(5000),
  ...overrides,
});

/** Streams Chat Completions chunks, each `choices[0]` built from a delta. */
function chatStream(chunks: unknown[], { done = true } = {}): Handler {
  return (_req, res) => {
    sseHead(res);
    for (const chunk of chunks) sendEvent(res, chunk);
    if (done) sendEvent(res, '[DONE]');
    res.end();
  };
}
const delta = (d: object, finish_reason: string | null = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: d, finish_reason }],
});
const usageChunk = {
  id: 'chatcmpl-1',
  choices: [],
  usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
};

const calls = (chunks: ModelChunk[]) => chunks.filter((c) => c.type === 'tool-call');
const finish = (chunks: ModelChunk[]) => chunks.at(-1);

describe('openai provider: streaming', () => {
  it('streams text and usage, and sends the Chat Completions request', async () => {
    const { server, model } = await setup(
      chatStream([
        delta({ role: 'assistant', content: '' }),
        delta({ content: 'Hel' }),
        delta({ content: 'lo' }),
        delta({}, 'stop'),
        usageChunk,
      ]),
      { organization: 'org-1', headers: { 'x-extra': 'yes' } },
    );
    const chunks = await collect(
      model.stream(
        request({
          system: 'Be brief.',
          maxTokens: 100,
          temperature: 0.2,
          messages: [
            { role: 'user', content: 'weather?' },
            {
              role: 'assistant',
              content: '',
              toolCalls: [{ id: 'call_1', name: 'weather', input: { city: 'Paris' } }],
            },
            { role: 'tool', toolCallId: 'call_1', name: 'weather', content: 'sunny' },
            { role: 'assistant', content: 'It is sunny.' },
            { role: 'user', content: 'thanks' },
          ],
          tools: [
            { name: 'weather', description: 'Weather now', inputSchema: { type: 'object', properties: {} } },
          ],
        }),
      ),
    );
    expect(chunks).toEqual([
      { type: 'text-delta', delta: 'Hel' },
      { type: 'text-delta', delta: 'lo' },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 12, outputTokens: 5 } },
    ]);
    const [received] = server.requests;
    expect(received?.path).toBe('/v1/chat/completions');
    expect(received?.headers.authorization).toBe('Bearer sk-test');
    expect(received?.headers['openai-organization']).toBe('org-1');
    expect(received?.headers['x-extra']).toBe('yes');
    expect(received?.headers.accept).toBe('text/event-stream');
    expect(received?.body).toEqual({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'assistant', content: 'It is sunny.' },
        { role: 'user', content: 'thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'weather',
            description: 'Weather now',
            parameters: { type: 'object', properties: {} },
          },
        },
      ],
      max_completion_tokens: 100,
      temperature: 0.2,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('omits tools, max tokens and temperature when not given', async () => {
    const { server, model } = await setup(chatStream([delta({ content: 'x' }, 'stop')]));
    await collect(model.stream(request()));
    const body = server.requests[0]?.body;
    expect(Object.keys(body)).toEqual(['model', 'messages', 'stream', 'stream_options']);
  });

  it('assembles several tool calls with interleaved indexes', async () => {
    const { model } = await setup(
      chatStream([
        delta({
          tool_calls: [
            { index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '' } },
          ],
        }),
        delta({
          tool_calls: [
            { index: 1, id: 'call_b', type: 'function', function: { name: 'list', arguments: '{"pa' } },
          ],
        }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
        delta({ tool_calls: [{ index: 1, function: { arguments: 'th":"."}' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '"a.txt"}' } }] }),
        delta({}, 'tool_calls'),
        usageChunk,
      ]),
    );
    const chunks = await collect(model.stream(request()));
    expect(chunks).toEqual([
      { type: 'tool-call-start', id: 'call_a', name: 'read' },
      { type: 'tool-call-start', id: 'call_b', name: 'list' },
      { type: 'tool-call-delta', id: 'call_b', delta: '{"pa' },
      { type: 'tool-call-delta', id: 'call_a', delta: '{"path":' },
      { type: 'tool-call-delta', id: 'call_b', delta: 'th":"."}' },
      { type: 'tool-call-delta', id: 'call_a', delta: '"a.txt"}' },
      { type: 'tool-call', id: 'call_a', name: 'read', input: { path: 'a.txt' } },
      { type: 'tool-call', id: 'call_b', name: 'list', input: { path: '.' } },
      { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 12, outputTokens: 5 } },
    ]);
  });

  it('matches deltas by id, then by order, when the server omits index', async () => {
    const { model } = await setup(
      chatStream([
        delta({ tool_calls: [{ id: 'call_a', function: { name: 'read', arguments: '{"path"' } }] }),
        delta({ tool_calls: [{ function: { arguments: ':"a"}' } }] }),
        delta({ tool_calls: [{ id: 'call_b', function: { name: 'read', arguments: '{"path":"b"}' } }] }),
        delta({ tool_calls: [{ id: 'call_a', function: { arguments: '' } }] }),
        delta({}, 'tool_calls'),
      ]),
    );
    const chunks = await collect(model.stream(request()));
    expect(calls(chunks)).toEqual([
      { type: 'tool-call', id: 'call_a', name: 'read', input: { path: 'a' } },
      { type: 'tool-call', id: 'call_b', name: 'read', input: { path: 'b' } },
    ]);
  });

  it('takes whole calls in one chunk, and finish_reason stop with calls as tool-calls', async () => {
    const { model } = await setup(
      chatStream([
        delta({
          tool_calls: [
            { index: 0, id: 'c1', type: 'function', function: { name: 'now', arguments: '' } },
            { index: 0, id: 'c2', type: 'function', function: { name: 'echo', arguments: 'not json' } },
          ],
        }),
        delta({}, 'stop'),
      ]),
    );
    const chunks = await collect(model.stream(request()));
    expect(chunks).toEqual([
      { type: 'tool-call-start', id: 'c1', name: 'now' },
      { type: 'tool-call-start', id: 'c2', name: 'echo' },
      { type: 'tool-call-delta', id: 'c2', delta: 'not json' },
      { type: 'tool-call', id: 'c1', name: 'now', input: {} },
      { type: 'tool-call', id: 'c2', name: 'echo', input: 'not json' },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
  });

  it('reports the prompt tokens read from the cache, streamed with the usage chunk', async () => {
    const { model } = await setup(
      chatStream([
        delta({ content: 'hi' }, 'stop'),
        { ...usageChunk, usage: { ...usageChunk.usage, prompt_tokens_details: { cached_tokens: 8 } } },
      ]),
    );
    expect(finish(await collect(model.stream(request())))).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 12, outputTokens: 5, cachedInputTokens: 8 },
    });
  });

  it('maps length and content_filter', async () => {
    const { model } = await setup((_req, res, i) =>
      chatStream([delta({ content: 'x' }, i === 0 ? 'length' : 'content_filter')])(_req, res, i),
    );
    expect(finish(await collect(model.stream(request())))).toEqual({
      type: 'finish',
      finishReason: 'length',
    });
    expect(finish(await collect(model.stream(request())))).toEqual({
      type: 'finish',
      finishReason: 'content-filter',
    });
  });

  it('fails with MODEL_RESPONSE_INVALID on a malformed chunk, quoting it', async () => {
    const { model } = await setup((_req, res) => {
      sseHead(res);
      sendEvent(res, delta({ content: 'ok' }));
      sendEvent(res, '{"choices": [oops');
      res.end();
    });
    const error = (await rejection(collect(model.stream(request())))) as HubosError;
    expect(error.code).toBe('MODEL_RESPONSE_INVALID');
    expect(error.message).toContain('{"choices": [oops');
  });

  it('fails with MODEL_HTTP_ERROR on an error payload mid-stream', async () => {
    const { model } = await setup((_req, res) => {
      sseHead(res);
      sendEvent(res, delta({ content: 'partial' }));
      sendEvent(res, { error: { message: 'The server had an error', type: 'server_error' } });
      res.end();
    });
    const error = (await rejection(collect(model.stream(request())))) as HubosError;
    expect(error.code).toBe('MODEL_HTTP_ERROR');
    expect(error.message).toBe('openai reported an error (server_error): The server had an error');
  });

  it('fails with MODEL_RESPONSE_INVALID when the stream stops before finishing', async () => {
    const { model } = await setup(chatStream([delta({ content: 'cut' })], { done: false }));
    const error = (await rejection(collect(model.stream(request())))) as HubosError;
    expect(error.code).toBe('MODEL_RESPONSE_INVALID');
  });

  it('ends promptly on abort mid-stream, with the abort reason, and closes the connection', async () => {
    let response: ServerResponse | undefined;
    const { server, model } = await setup((_req, res) => {
      response = res;
      sseHead(res);
      sendEvent(res, delta({ content: 'first' }));
    });
    const controller = new AbortController();
    const reason = new DOMException('cancelled by test', 'AbortError');
    const seen: ModelChunk[] = [];
    const consuming = (async () => {
      for await (const chunk of model.stream(request({ signal: controller.signal }))) {
        seen.push(chunk);
        controller.abort(reason);
      }
    })();
    const started = Date.now();
    expect(await rejection(consuming)).toBe(reason);
    expect(Date.now() - started).toBeLessThan(500);
    expect(seen).toEqual([{ type: 'text-delta', delta: 'first' }]);
    await server.requests[0]?.closed;
    expect(response?.writableEnded).toBe(false);
  });

  it('closes the connection when the consumer stops reading', async () => {
    const { server, model } = await setup((_req, res) => {
      sseHead(res);
      sendEvent(res, delta({ content: 'first' }));
    });
    for await (const _chunk of model.stream(request())) break;
    await server.requests[0]?.closed;
  });

  it('times out when the stream goes idle', async () => {
    const { model } = await setup(
      (_req, res) => {
        sseHead(res);
        sendEvent(res, delta({ content: 'first' }));
      },
      { timeoutMs: 50 },
    );
    const error = (await rejection(collect(model.stream(request())))) as HubosError;
    expect(error.code).toBe('MODEL_TIMEOUT');
  });
});

describe('openai provider: non-streaming', () => {
  it('turns a JSON completion into the same chunks', async () => {
    const { server, model } = await setup(
      (_req, res) =>
        sendJSON(res, 200, {
          id: 'chatcmpl-2',
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: 'Let me look.',
                tool_calls: [
                  { id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
                  { id: 'c2', type: 'function', function: { name: 'read', arguments: '{"path":"b"}' } },
                ],
              },
              finish_reason: 'tool_calls',
            },
          ],
          usage: {
            prompt_tokens: 3,
            completion_tokens: 4,
            total_tokens: 7,
            prompt_tokens_details: { cached_tokens: 2 },
          },
        }),
      { stream: false },
    );
    const chunks = await collect(model.stream(request()));
    expect(server.requests[0]?.body.stream).toBe(false);
    expect(server.requests[0]?.body.stream_options).toBeUndefined();
    expect(chunks).toEqual([
      { type: 'text-delta', delta: 'Let me look.' },
      { type: 'tool-call-start', id: 'c1', name: 'read' },
      { type: 'tool-call-delta', id: 'c1', delta: '{"path":"a"}' },
      { type: 'tool-call-start', id: 'c2', name: 'read' },
      { type: 'tool-call-delta', id: 'c2', delta: '{"path":"b"}' },
      { type: 'tool-call', id: 'c1', name: 'read', input: { path: 'a' } },
      { type: 'tool-call', id: 'c2', name: 'read', input: { path: 'b' } },
      {
        type: 'finish',
        finishReason: 'tool-calls',
        usage: { inputTokens: 3, outputTokens: 4, cachedInputTokens: 2 },
      },
    ]);
  });
  it('asks for the whole answer when the request says nobody reads it as it comes', async () => {
    const { server, model } = await setup((_req, res) =>
      sendJSON(res, 200, {
        id: 'chatcmpl-3',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }],
      }),
    );
    const chunks = await collect(model.stream(request({ stream: false })));
    expect(server.requests[0]?.body.stream).toBe(false);
    expect(server.requests[0]?.headers.accept).toBe('application/json');
    expect(chunks).toEqual([
      { type: 'text-delta', delta: 'done' },
      { type: 'finish', finishReason: 'stop' },
    ]);
  });

  it('reports a broken JSON body, quoting it', async () => {
    const { model } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"choices": [');
    });
    const error = await rejection(collect(model.stream(request({ stream: false }))));
    expect(HubosError.is(error) && error.code).toBe('MODEL_RESPONSE_INVALID');
    expect(String((error as Error).message)).toContain('{"choices": [');
  });
});

describe('openai provider: errors and retries', () => {
  it('surfaces a 401 with OpenAI’s message, the status and how to fix the key', async () => {
    const { model } = await setup((_req, res) =>
      sendJSON(res, 401, {
        error: {
          message: 'Incorrect API key provided: sk-test.',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      }),
    );
    const error = (await rejection(collect(model.stream(request())))) as HubosError;
    expect(error.code).toBe('MODEL_HTTP_ERROR');
    expect(error.message).toBe(
      'openai rejected the API key (HTTP 401: Incorrect API key provided: sk-test.); set OPENAI_API_KEY or the config key openai.apiKey',
    );
    expect(error.details).toMatchObject({ provider: 'openai', status: 401 });
  });

  it('does not retry a 400', async () => {
    const { server, model } = await setup((_req, res) => sendJSON(res, 400, { error: { message: 'bad' } }));
    const error = (await rejection(collect(model.stream(request())))) as HubosError;
    expect(error.details.status).toBe(400);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 429 with Retry-After: 0, then streams', async () => {
    const { server, model } = await setup((req, res, i) =>
      i === 0
        ? sendJSON(res, 429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '0' })
        : chatStream([delta({ content: 'ok' }, 'stop')])(req, res, i),
    );
    const chunks = await collect(model.stream(request()));
    expect(chunks[0]).toEqual({ type: 'text-delta', delta: 'ok' });
    expect(server.requests).toHaveLength(2);
  });

  it('retries 503 twice, then streams', async () => {
    const { server, model } = await setup((req, res, i) =>
      i < 2
        ? sendJSON(res, 503, { error: { message: 'overloaded' } })
        : chatStream([delta({ content: 'ok' }, 'stop')])(req, res, i),
    );
    await collect(model.stream(request()));
    expect(server.requests).toHaveLength(3);
  });

  it('fails after the retries run out', async () => {
    const { server, model } = await setup((_req, res) =>
      sendJSON(res, 502, { error: { message: 'bad gateway' } }),
    );
    const error = (await rejection(collect(model.stream(request())))) as HubosError;
    expect(error.message).toBe('openai request failed with HTTP 502: bad gateway (gave up after 2 retries)');
    expect(server.requests).toHaveLength(3);
  });

  it('needs a key only for api.openai.com', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    provider = createOpenAIProvider();
    const error = (await rejection(
      collect(provider.languageModel('gpt-4.1').stream(request())),
    )) as HubosError;
    expect(error.code).toBe('MODEL_CONFIG');
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(error.message).toContain('openai.apiKey');
    await provider.close?.();

    const { server, model } = await setup(chatStream([delta({ content: 'local' }, 'stop')]), {
      apiKey: undefined,
    });
    await collect(model.stream(request()));
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('rejects a model reference without a model id', async () => {
    provider = createOpenAIProvider({ apiKey: 'k' });
    expect(() => provider?.languageModel('')).toThrow(/openai:gpt-4.1-mini/);
  });
});

describe('openai plugin', () => {
  async function boot(config: HubosConfig, options?: OpenAIOptions) {
    kernel = createKernel({ config, plugins: [openai(options)], logger: silentLogger });
    return kernel.boot();
  }

  it('registers the openai provider from config and streams through the kernel', async () => {
    server = await startServer(chatStream([delta({ content: 'via kernel' }, 'stop'), usageChunk]));
    const booted = await boot({ openai: { baseURL: `${server.url}/v1`, apiKey: 'sk-config' } });
    const model = booted.models.resolve('openai:gpt-4.1-mini');
    expect(model.provider).toBe('openai');
    expect(model.modelId).toBe('gpt-4.1-mini');
    const chunks = await collect(model.stream(request()));
    expect(chunks).toEqual([
      { type: 'text-delta', delta: 'via kernel' },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 12, outputTokens: 5 } },
    ]);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-config');
  });

  it('prefers factory options over config over the environment', async () => {
    server = await startServer(chatStream([delta({ content: 'x' }, 'stop')]));
    vi.stubEnv('OPENAI_API_KEY', 'sk-env');
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:1/v1');
    const booted = await boot(
      { openai: { baseURL: `${server.url}/v1`, apiKey: 'sk-config' } },
      { apiKey: 'sk-factory' },
    );
    await collect(booted.models.resolve('openai:m').stream(request()));
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-factory');
    await kernel?.close();

    const second = await boot({ openai: { baseURL: `${server.url}/v1` } });
    await collect(second.models.resolve('openai:m').stream(request()));
    expect(server.requests[1]?.headers.authorization).toBe('Bearer sk-env');
  });

  it('validates its config key', async () => {
    const error = (await rejection(
      boot({ openai: { apiKey: 'k', baseUrl: 'typo' } as OpenAIOptions }),
    )) as HubosError;
    expect(error).toBeInstanceOf(HubosError);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('baseUrl');
  });
});
