import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createKernel,
  type HubosError,
  type Kernel,
  type ModelChunk,
  type ModelProvider,
  type ModelRequest,
  silentLogger,
} from '../../../core/index.ts';
import anthropic, {
  ANTHROPIC_VERSION,
  type AnthropicOptions,
  createAnthropicProvider,
} from '../../../plugins/models/anthropic.ts';
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

async function setup(handler: Handler, options: AnthropicOptions = {}) {
  server = await startServer(handler);
  provider = createAnthropicProvider({
    baseURL: server.url,
    apiKey: 'sk-ant-test',
    retryBaseMs: 1,
    ...options,
  });
  return { server, model: provider.languageModel('claude-sonnet-4-5') };
}

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  signal: AbortSignal.timeout(5000),
  ...overrides,
});

type WireEvent = { type: string } & Record<string, unknown>;

/** Streams Messages API events, each with its `event:` line as the real API sends them. */
function messageStream(events: WireEvent[], { end = true } = {}): Handler {
  return (_req, res) => {
    sseHead(res);
    for (const event of events) sendEvent(res, event, event.type);
    if (end) res.end();
  };
}

const start = (input_tokens = 25): WireEvent => ({
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    content: [],
    model: 'claude-sonnet-4-5',
    stop_reason: null,
    usage: { input_tokens, output_tokens: 1 },
  },
});
const textBlock = (index: number, ...parts: string[]): WireEvent[] => [
  { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
  ...parts.map((text) => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } })),
  { type: 'content_block_stop', index },
];
const stop = (stop_reason: string, output_tokens = 9): WireEvent[] => [
  { type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: { output_tokens } },
  { type: 'message_stop' },
];

describe('anthropic provider: streaming', () => {
  it('streams text and usage, and sends the Messages request', async () => {
    const { server, model } = await setup(
      messageStream([start(), { type: 'ping' }, ...textBlock(0, 'Hel', 'lo'), ...stop('end_turn')]),
    );
    const chunks = await collect(
      model.stream(
        request({
          system: 'Be brief.',
          temperature: 0.5,
          messages: [
            { role: 'user', content: 'read both' },
            {
              role: 'assistant',
              content: 'Reading.',
              toolCalls: [
                { id: 'toolu_1', name: 'read', input: { path: 'a' } },
                { id: 'toolu_2', name: 'read', input: { path: 'b' } },
              ],
            },
            { role: 'tool', toolCallId: 'toolu_1', name: 'read', content: 'A' },
            { role: 'tool', toolCallId: 'toolu_2', name: 'read', content: 'no such file', isError: true },
            { role: 'user', content: 'and?' },
            { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_3', name: 'read', input: 'raw{' }] },
          ],
          tools: [
            { name: 'read', description: 'Reads a file', inputSchema: { type: 'object', properties: {} } },
          ],
        }),
      ),
    );
    expect(chunks).toEqual([
      { type: 'text-delta', delta: 'Hel' },
      { type: 'text-delta', delta: 'lo' },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 25, outputTokens: 9 } },
    ]);
    const [received] = server.requests;
    expect(received?.path).toBe('/v1/messages');
    expect(received?.headers['x-api-key']).toBe('sk-ant-test');
    expect(received?.headers['anthropic-version']).toBe('2023-06-01');
    expect(ANTHROPIC_VERSION).toBe('2023-06-01');
    expect(received?.headers.authorization).toBeUndefined();
    expect(received?.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      // Cache breakpoints: the instructions, the last tool, the conversation's last block.
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'read both' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Reading.' },
            { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } },
            { type: 'tool_use', id: 'toolu_2', name: 'read', input: { path: 'b' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'A', is_error: false },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: 'no such file', is_error: true },
            { type: 'text', text: 'and?' },
          ],
        },
        {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 'toolu_3',
              name: 'read',
              input: { input: 'raw{' },
              cache_control: { type: 'ephemeral' },
            },
          ],
        },
      ],
      tools: [
        {
          name: 'read',
          description: 'Reads a file',
          input_schema: { type: 'object', properties: {} },
          cache_control: { type: 'ephemeral' },
        },
      ],
      temperature: 0.5,
      stream: true,
    });
  });

  it('streams tool calls, their JSON in pieces, and stops with tool-calls', async () => {
    const { model } = await setup(
      messageStream([
        start(),
        ...textBlock(0, 'Let me check.'),
        {
          type: 'content_block_start',
          index: 1,
          content_block: { type: 'tool_use', id: 'toolu_a', name: 'weather', input: {} },
        },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
        {
          type: 'content_block_delta',
          index: 1,
          delta: { type: 'input_json_delta', partial_json: '{"city": "Pa' },
        },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'ris"}' } },
        { type: 'content_block_stop', index: 1 },
        {
          type: 'content_block_start',
          index: 2,
          content_block: { type: 'tool_use', id: 'toolu_b', name: 'now', input: {} },
        },
        { type: 'content_block_stop', index: 2 },
        ...stop('tool_use', 40),
      ]),
      { maxTokens: 1000 },
    );
    const chunks = await collect(model.stream(request({ maxTokens: 64 })));
    expect(chunks).toEqual([
      { type: 'text-delta', delta: 'Let me check.' },
      { type: 'tool-call-start', id: 'toolu_a', name: 'weather' },
      { type: 'tool-call-delta', id: 'toolu_a', delta: '{"city": "Pa' },
      { type: 'tool-call-delta', id: 'toolu_a', delta: 'ris"}' },
      { type: 'tool-call', id: 'toolu_a', name: 'weather', input: { city: 'Paris' } },
      { type: 'tool-call-start', id: 'toolu_b', name: 'now' },
      { type: 'tool-call', id: 'toolu_b', name: 'now', input: {} },
      { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 25, outputTokens: 40 } },
    ]);
    expect(server?.requests[0]?.body.max_tokens).toBe(64);
  });

  it('maps max_tokens to length and counts cached prompt tokens as input', async () => {
    const cached = start();
    (cached.message as { usage: object }).usage = {
      input_tokens: 5,
      cache_creation_input_tokens: 10,
      cache_read_input_tokens: 100,
      output_tokens: 1,
    };
    const { model } = await setup(
      messageStream([cached, ...textBlock(0, 'trunc'), ...stop('max_tokens', 3)]),
    );
    const chunks = await collect(model.stream(request()));
    expect(chunks.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'length',
      usage: { inputTokens: 115, outputTokens: 3, cachedInputTokens: 100 },
    });
  });

  it('fails with MODEL_HTTP_ERROR on an error event mid-stream', async () => {
    const { model } = await setup(
      messageStream([
        start(),
        ...textBlock(0, 'part'),
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } as WireEvent,
      ]),
    );
    const error = (await rejection(collect(model.stream(request())))) as HubosError;
    expect(error.code).toBe('MODEL_HTTP_ERROR');
    expect(error.message).toBe('anthropic reported an error (overloaded_error): Overloaded');
  });

  it('fails with MODEL_RESPONSE_INVALID on a malformed event or a stream cut before message_stop', async () => {
    const { model } = await setup((req, res, i) => {
      if (i === 1) return messageStream([start(), ...textBlock(0, 'cut')])(req, res, i);
      sseHead(res);
      sendEvent(res, '{"type": "message_start", nope', 'message_start');
      res.end();
    });
    const malformed = (await rejection(collect(model.stream(request())))) as HubosError;
    expect(malformed.code).toBe('MODEL_RESPONSE_INVALID');
    expect(malformed.message).toContain('{"type": "message_start", nope');
    const cut = (await rejection(collect(model.stream(request())))) as HubosError;
    expect(cut.code).toBe('MODEL_RESPONSE_INVALID');
    expect(cut.message).toContain('message_stop');
  });

  it('ends promptly on abort mid-stream and closes the connection', async () => {
    const { server, model } = await setup(messageStream([start(), ...textBlock(0, 'first')], { end: false }));
    const controller = new AbortController();
    const consuming = (async () => {
      for await (const _chunk of model.stream(request({ signal: controller.signal }))) controller.abort();
    })();
    const error = (await rejection(consuming)) as Error;
    expect(error.name).toBe('AbortError');
    await server.requests[0]?.closed;
  });
});

describe('anthropic provider: non-streaming', () => {
  it('turns a JSON message into the same chunks', async () => {
    const { server, model } = await setup(
      (_req, res) =>
        sendJSON(res, 200, {
          id: 'msg_2',
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_x', name: 'weather', input: { city: 'Oslo' } },
          ],
          stop_reason: 'tool_use',
          usage: { input_tokens: 7, output_tokens: 8 },
        }),
      { stream: false },
    );
    const chunks: ModelChunk[] = await collect(model.stream(request()));
    expect(server.requests[0]?.body.stream).toBe(false);
    expect(server.requests[0]?.headers.accept).toBe('application/json');
    expect(chunks).toEqual([
      { type: 'text-delta', delta: 'Checking.' },
      { type: 'tool-call-start', id: 'toolu_x', name: 'weather' },
      { type: 'tool-call', id: 'toolu_x', name: 'weather', input: { city: 'Oslo' } },
      { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 7, outputTokens: 8 } },
    ]);
  });
});

describe('anthropic provider: errors and retries', () => {
  it('surfaces a 401 with Anthropic’s message, the status and how to fix the key', async () => {
    const { server, model } = await setup((_req, res) =>
      sendJSON(res, 401, {
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
      }),
    );
    const error = (await rejection(collect(model.stream(request())))) as HubosError;
    expect(error.code).toBe('MODEL_HTTP_ERROR');
    expect(error.message).toBe(
      'anthropic rejected the API key (HTTP 401: invalid x-api-key); set ANTHROPIC_API_KEY or the config key anthropic.apiKey',
    );
    expect(error.details).toMatchObject({ provider: 'anthropic', status: 401 });
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 400', async () => {
    const { server, model } = await setup((_req, res) =>
      sendJSON(res, 400, {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens: too big' },
      }),
    );
    const error = (await rejection(collect(model.stream(request())))) as HubosError;
    expect(error.message).toBe('anthropic request failed with HTTP 400: max_tokens: too big');
    expect(server.requests).toHaveLength(1);
  });

  it('retries 429 (Retry-After: 0) and 529, then streams', async () => {
    const { server, model } = await setup((req, res, i) => {
      if (i === 0)
        return sendJSON(res, 429, { type: 'error', error: { message: 'rate' } }, { 'retry-after': '0' });
      if (i === 1)
        return sendJSON(res, 529, {
          type: 'error',
          error: { type: 'overloaded_error', message: 'Overloaded' },
        });
      return messageStream([start(), ...textBlock(0, 'ok'), ...stop('end_turn')])(req, res, i);
    });
    const chunks = await collect(model.stream(request()));
    expect(chunks[0]).toEqual({ type: 'text-delta', delta: 'ok' });
    expect(server.requests).toHaveLength(3);
  });

  it('needs a key only for api.anthropic.com', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    vi.stubEnv('ANTHROPIC_BASE_URL', '');
    provider = createAnthropicProvider();
    const error = (await rejection(
      collect(provider.languageModel('claude').stream(request())),
    )) as HubosError;
    expect(error.code).toBe('MODEL_CONFIG');
    expect(error.message).toContain('ANTHROPIC_API_KEY');
    expect(error.message).toContain('anthropic.apiKey');
  });
});

describe('anthropic plugin', () => {
  it('registers the anthropic provider from config and env, and streams through the kernel', async () => {
    server = await startServer(messageStream([start(), ...textBlock(0, 'via kernel'), ...stop('end_turn')]));
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-env');
    kernel = createKernel({
      config: { anthropic: { baseURL: server.url, maxTokens: 512 } },
      plugins: [anthropic()],
      logger: silentLogger,
    });
    await kernel.boot();
    const model = kernel.models.resolve('anthropic:claude-sonnet-4-5');
    const chunks = await collect(model.stream(request()));
    expect(chunks[0]).toEqual({ type: 'text-delta', delta: 'via kernel' });
    expect(server.requests[0]?.headers['x-api-key']).toBe('sk-ant-env');
    expect(server.requests[0]?.body.max_tokens).toBe(512);
  });
});
