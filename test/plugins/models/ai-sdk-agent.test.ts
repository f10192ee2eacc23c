import { APICallError, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AgentEvent,
  defineTool,
  HubosError,
  type Kernel,
  type KernelOptions,
  type Plugin,
  type SampleResult,
} from '../../../core/index.ts';
import cosmos from '../../../plugins/cosmos/index.ts';
import { SubagentTypes } from '../../../plugins/subagent/index.ts';
import workflows, { defineWorkflow } from '../../../plugins/workflows/index.ts';
import { bootKernel } from '../../../testing/index.ts';
import { finish, mockModel, text, toolCall, usage } from './ai-sdk-helpers.ts';
import { rejection } from './server.ts';

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.close();
  kernel = undefined;
});

const added: unknown[] = [];
const addTool = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  } as const,
  handler: (_ctx, { input }) => {
    added.push(input);
    return { sum: input.a + input.b };
  },
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

describe('an AI SDK model as an agent model', () => {
  it('runs an agent: two parallel tool calls, their results sent back, then the answer', async () => {
    added.length = 0;
    const model = mockModel(
      [
        ...toolCall('c1', 'add', '{"a":1,"b":2}'),
        ...toolCall('c2', 'add', '{"a":3,"b":4}'),
        finish('tool-calls'),
      ],
      [...text('3 and ', '7.'), finish('stop', usage(30, 6))],
    );
    const booted = await boot({
      config: { agents: { calc: { instructions: 'Add.', model, tools: ['add'], maxTokens: 100 } } },
    });
    const agent = booted.agent('calc');
    expect(agent.modelRef).toBe('mock.chat:mock-1');

    const result = await agent.run('Add 1+2 and 3+4.');
    expect(result).toMatchObject({ status: 'completed', stopReason: 'stop', text: '3 and 7.', steps: 2 });
    expect(result.usage).toEqual({ inputTokens: 40, outputTokens: 10 });
    expect(result.toolCalls.map(({ id, input, ok, output }) => ({ id, input, ok, output }))).toEqual([
      { id: 'c1', input: { a: 1, b: 2 }, ok: true, output: { sum: 3 } },
      { id: 'c2', input: { a: 3, b: 4 }, ok: true, output: { sum: 7 } },
    ]);
    expect(added).toHaveLength(2);

    const [first, second] = model.doStreamCalls;
    expect(first!.prompt[0]).toEqual({ role: 'system', content: 'Add.' });
    expect(first!.tools).toEqual([
      { type: 'function', name: 'add', description: 'Adds two numbers.', inputSchema: addTool.inputSchema },
    ]);
    expect(first!.maxOutputTokens).toBe(100);
    expect(second!.prompt.at(-1)).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'add',
          output: { type: 'text', value: '{"sum":3}' },
        },
        {
          type: 'tool-result',
          toolCallId: 'c2',
          toolName: 'add',
          output: { type: 'text', value: '{"sum":7}' },
        },
      ],
    });
  });

  it('answers unparseable tool input with an error result, without running the tool', async () => {
    added.length = 0;
    const model = mockModel(
      [{ type: 'tool-call', toolCallId: 'bad', toolName: 'add', input: '{"a":1,' }, finish('tool-calls')],
      [...text('Sorry.'), finish()],
    );
    const booted = await boot({ config: { agents: { calc: { model, tools: ['add'] } } } });
    const result = await booted.agent('calc').run('Add.');
    expect(result.status).toBe('completed');
    expect(added).toEqual([]);
    const sent = model.doStreamCalls[1]!.prompt.at(-1) as {
      content: { output: { type: string; value: string } }[];
    };
    expect(sent.content[0]!.output.type).toBe('error-text');
    expect(sent.content[0]!.output.value).toContain('not valid JSON');
  });

  it('serves as the config top-level model for agents that name none', async () => {
    const model = mockModel([...text('default'), finish()]);
    const booted = await boot({ config: { model, agents: { plain: { instructions: 'Hi.' } } } });
    expect(booted.agent('plain').modelRef).toBe('mock.chat:mock-1');
    expect((await booted.agent('plain').run('hello')).text).toBe('default');
  });

  it('fails the run with the mapped error code when the provider refuses the key', async () => {
    const model = new MockLanguageModelV3({
      provider: 'mock.chat',
      modelId: 'mock-1',
      doStream: async () => {
        throw new APICallError({
          message: 'Incorrect API key provided',
          url: 'https://api.example.com',
          requestBodyValues: {},
          statusCode: 401,
        });
      },
    });
    const booted = await boot({ config: { agents: { a: { model } } } });
    const error = (await rejection(booted.agent('a').run('hi'))) as HubosError;
    expect(error).toBeInstanceOf(HubosError);
    expect(error.code).toBe('MODEL_HTTP_ERROR');
    expect(error.message).toContain('Incorrect API key provided');
  });

  it('ends the run cancelled when it is aborted mid-stream; the model saw the abort', async () => {
    let cancelled = false;
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'partial' });
          },
          cancel() {
            cancelled = true;
          },
        }),
      }),
    });
    const booted = await boot({ config: { agents: { a: { model } } } });
    const controller = new AbortController();
    const onEvent = (event: AgentEvent) => {
      if (event.type === 'text-delta') controller.abort();
    };
    const result = await booted.agent('a').run('hi', { signal: controller.signal, onEvent });
    expect(result.status).toBe('cancelled');
    expect(model.doStreamCalls[0]!.abortSignal?.aborted).toBe(true);
    expect(cancelled).toBe(true);
  });

  it('rejects an object that is no model, naming what a model may be', async () => {
    const error = (await rejection(
      boot({ config: { agents: { a: { model: { provider: 'x' } as never } } } }),
    )) as HubosError;
    expect(error.message).toMatch(/a LanguageModel or an AI SDK language model/);
  });
});

describe('AI SDK models in plugins that take model objects', () => {
  it('sub-agent types accept one; other objects are refused', () => {
    const types = new SubagentTypes();
    types.register('fast', { description: 'Fast.', model: mockModel() });
    expect(types.get('fast')?.model).toBeDefined();
    expect(() => types.register('bad', { description: 'Bad.', model: { provider: 'x' } as never })).toThrow(
      /an AI SDK language model/,
    );
  });

  it('a workflow tool samples the config model when it is an AI SDK model', async () => {
    let sampled: SampleResult | undefined;
    const sampler: Plugin = {
      name: 'sampler',
      apply(k) {
        k.hooks.registerTools.tap('sampler', (registry) =>
          registry.register(
            defineTool({
              name: 'colour',
              description: 'Asks the model for a colour.',
              inputSchema: { type: 'object', properties: {} },
              handler: async (_ctx, tc) => {
                sampled = await tc.sample({
                  messages: [{ role: 'user', content: 'A colour?' }],
                  maxTokens: 10,
                });
                return sampled.text;
              },
            }),
          ),
        );
      },
    };
    const flow = defineWorkflow({
      name: 'paint',
      steps: [{ id: 'pick', kind: 'tool', tool: 'colour', input: {} }],
    });
    const model = mockModel([...text('Teal'), finish()]);
    const booted = await boot({ plugins: [sampler, workflows([flow])], config: { model } });
    const result = await booted.service('workflows').get('paint')!.run({});
    expect(result.status).toBe('completed');
    expect(sampled).toMatchObject({ text: 'Teal', model: 'mock.chat:mock-1' });
  });

  it('a Cosmos agent takes one as its model override, except when persisted', async () => {
    const model = mockModel([...text('from the override'), finish()]);
    const template = { instructions: 'Work.', model: mockModel() };
    const booted = await boot({ plugins: [cosmos()], config: { cosmos: {}, agents: { worker: template } } });
    const agent = await booted.service('cosmos').create({ agentId: 'w-1', templateId: 'worker', model });
    expect((await agent.run('go')).text).toBe('from the override');
    await booted.close();

    const persisted = await boot({
      plugins: [cosmos()],
      config: { cosmos: { persist: true }, agents: { worker: template } },
    });
    const error = (await rejection(
      persisted.service('cosmos').create({ agentId: 'w-2', templateId: 'worker', model }),
    )) as HubosError;
    expect(error.message).toMatch(/persisted, so its model must be a reference string/);
  });
});
