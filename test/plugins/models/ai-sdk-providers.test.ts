import type { ServerResponse } from 'node:http';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AiSdkProvider,
  defineConfig,
  defineTool,
  type HubosError,
  type Kernel,
  type KernelOptions,
  type Logger,
  type Plugin,
} from '../../../core/index.ts';
import { aiSdkProviders, openai } from '../../../plugins/index.ts';
import { bootKernel } from '../../../testing/index.ts';
import {
  type FakeServer,
  type Handler,
  rejection,
  sendEvent,
  sendJSON,
  sseHead,
  startServer,
} from './server.ts';

let server: FakeServer | undefined;
let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.close();
  await server?.close();
  kernel = server = undefined;
});

const addTool = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  } as const,
  handler: (_ctx, { input }) => ({ sum: input.a + input.b }),
});

const tools: Plugin = {
  name: 'test-tools',
  apply(k) {
    k.hooks.registerTools.tap('test-tools', (registry) => registry.register(addTool));
  },
};

async function boot(options: KernelOptions) {
  kernel = await bootKernel({ ...options, plugins: [tools, ...(options.plugins ?? [])] });
  return kernel;
}

// The Chat Completions streaming wire format, as an OpenAI-compatible server sends it.
const chunk = (delta: object, finish_reason: string | null = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'some-model',
  choices: [{ index: 0, delta, finish_reason }],
});
const usageChunk = (prompt_tokens: number, completion_tokens: number) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'some-model',
  choices: [],
  usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
});

function stream(res: ServerResponse, chunks: unknown[]) {
  sseHead(res);
  for (const c of chunks) sendEvent(res, c);
  sendEvent(res, '[DONE]');
  res.end();
}

/** First a call of `add` (arguments split over two chunks), then a text answer. */
const toolThenAnswer: Handler = (_req, res, index) =>
  index === 0
    ? stream(res, [
        chunk({
          role: 'assistant',
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '2,"b":3}' } }] }),
        chunk({}, 'tool_calls'),
        usageChunk(20, 7),
      ])
    : stream(res, [
        chunk({ role: 'assistant', content: 'The sum ' }),
        chunk({ content: 'is 5.' }, 'stop'),
        usageChunk(35, 4),
      ]);

const local = (url: string) =>
  createOpenAICompatible({ name: 'local', baseURL: `${url}/v1`, includeUsage: true });

describe('@ai-sdk/openai-compatible against a Chat Completions server', () => {
  it('runs an agent end to end: the model calls a tool, then answers', async () => {
    server = await startServer(toolThenAnswer);
    const config = defineConfig({
      agents: {
        calc: { instructions: 'Use the tools.', model: local(server.url)('some-model'), tools: ['add'] },
      },
    });
    const booted = await boot({ config });
    const result = await booted.agent('calc').run('What is 2+3?');

    expect(result).toMatchObject({ status: 'completed', text: 'The sum is 5.', steps: 2 });
    // The AI SDK's OpenAI provider says 0 cached tokens when the wire names none.
    expect(result.usage).toEqual({ inputTokens: 55, outputTokens: 11, cachedInputTokens: 0 });
    expect(result.toolCalls).toMatchObject([
      { id: 'call_1', name: 'add', input: { a: 2, b: 3 }, output: { sum: 5 } },
    ]);

    const [first, second] = server.requests;
    expect(first?.path).toBe('/v1/chat/completions');
    expect(first?.body).toMatchObject({
      model: 'some-model',
      stream: true,
      messages: [
        { role: 'system', content: 'Use the tools.' },
        { role: 'user', content: 'What is 2+3?' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'add', description: 'Adds two numbers.', parameters: addTool.inputSchema },
        },
      ],
    });
    expect(second?.body.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"sum":5}' },
    ]);
  });

  it('maps a rejected key to MODEL_HTTP_ERROR with the server message, and retries a 500', async () => {
    server = await startServer((_req, res, index) => {
      if (index === 0) sendJSON(res, 500, { error: { message: 'overloaded' } });
      else if (index === 1) stream(res, [chunk({ content: 'ok' }, 'stop')]);
      else sendJSON(res, 401, { error: { message: 'Incorrect API key provided' } });
    });
    const booted = await boot({
      plugins: [aiSdkProviders({ local: local(server.url) }, { retryBaseMs: 1 })],
      config: { agents: { a: { model: 'local:some-model' } } },
    });
    expect((await booted.agent('a').run('hi')).text).toBe('ok');
    expect(server.requests).toHaveLength(2);

    const error = (await rejection(booted.agent('a').run('hi'))) as HubosError;
    expect(error.code).toBe('MODEL_HTTP_ERROR');
    expect(error.message).toMatch(
      /local\.chat model "some-model": the API key was rejected \(HTTP 401: Incorrect API key provided\)/,
    );
    expect(server.requests).toHaveLength(3);
  });

  it('cancels a run mid-stream: the run ends cancelled and the connection closes', async () => {
    server = await startServer((_req, res) => {
      sseHead(res);
      sendEvent(res, chunk({ content: 'Once upon' }));
      // ...and never finishes.
    });
    const booted = await boot({ config: { agents: { a: { model: local(server.url)('slow') } } } });
    const controller = new AbortController();
    const result = await booted.agent('a').run('tell a story', {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'text-delta') controller.abort();
      },
    });
    expect(result.status).toBe('cancelled');
    await server.requests[0]?.closed;
  });
});

describe('aiSdkProviders', () => {
  it("resolves 'local:some-model' by reference, named by its key", async () => {
    server = await startServer(toolThenAnswer);
    const booted = await boot({
      plugins: [aiSdkProviders({ local: local(server.url) })],
      config: { model: 'local:some-model', agents: { calc: { tools: ['add'] } } },
    });
    const agent = booted.agent('calc');
    expect(agent.modelRef).toBe('local:some-model');
    expect(booted.models.get('local').description).toBe('AI SDK provider "local"');
    const result = await agent.run('What is 2+3?');
    expect(result.text).toBe('The sum is 5.');
    expect(server.requests.map((r) => r.body.model)).toEqual(['some-model', 'some-model']);
  });

  it('replaces a provider already registered under its key, whatever the plugin order, and says so', async () => {
    server = await startServer((_req, res) => stream(res, [chunk({ content: 'via the AI SDK' }, 'stop')]));
    const lines: string[] = [];
    const logger: Logger = { debug() {}, info: (m) => lines.push(m), warn() {}, error() {} };
    const booted = await boot({
      logger,
      plugins: [aiSdkProviders({ openai: local(server.url) }), openai({ apiKey: 'sk-unused' })],
      config: { agents: { a: { model: 'openai:gpt-4.1-mini' } } },
    });
    expect(booted.models.get('openai').description).toBe('AI SDK provider "openai"');
    expect((await booted.agent('a').run('hi')).text).toBe('via the AI SDK');
    expect(server.requests[0]?.body.model).toBe('gpt-4.1-mini');
    expect(lines).toContain(
      'ai-sdk-providers: "openai" now serves "openai:<model>" in place of the provider registered before',
    );
  });

  it('refuses a bad key or something that is no provider, at once', () => {
    const provider = createOpenAICompatible({ name: 'x', baseURL: 'http://127.0.0.1:1/v1' });
    expect(() => aiSdkProviders({ 'a:b': provider })).toThrow(/key "a:b" is the prefix of model references/);
    expect(() => aiSdkProviders({ x: {} as AiSdkProvider })).toThrow(/"x" must be an AI SDK provider/);
  });

  it('names the fix for a reference without a model, or a model the provider does not have', async () => {
    const picky: AiSdkProvider = {
      languageModel(id) {
        throw new Error(`No such languageModel: ${id}`);
      },
    };
    const booted = await boot({ plugins: [aiSdkProviders({ picky, local: local('http://127.0.0.1:1') })] });
    const failure = (ref: string) => {
      try {
        booted.models.resolve(ref);
      } catch (error) {
        return error as HubosError;
      }
    };
    expect(failure('local')).toMatchObject({
      code: 'MODEL_CONFIG',
      message: expect.stringMatching(/"local:<model id>"/),
    });
    expect(failure('picky:nope')).toMatchObject({
      code: 'MODEL_CONFIG',
      message: 'picky has no model "nope": No such languageModel: nope',
    });
  });
});
