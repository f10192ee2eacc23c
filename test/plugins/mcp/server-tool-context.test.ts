import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type ElicitResult,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { defineTool, toolOutput } from '../../../core/index.ts';
import { ScriptedModel } from '../../../testing/index.ts';
import { connect, gate, type Served, serveMcp, textOf } from './server-helpers.ts';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

let served: Served | undefined;
const clients: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await served?.close();
  served = undefined;
});

/** The test server, with every tool served and these registered besides. */
async function setup(...tools: Parameters<Served['kernel']['registry']['registerBatch']>[0]) {
  served = await serveMcp({ mcp: { serve: { agents: true } } });
  served.kernel.registry.registerBatch(tools);
  return served;
}

async function client(url: string, options: Parameters<typeof connect>[1] = {}) {
  const connected = await connect(url, options);
  clients.push(connected.client);
  return connected.client;
}

const none = { type: 'object', properties: {} } as const;

describe('tool calls over MCP get the whole tool context', () => {
  it('return rich content as MCP content, structured data with it, and list the schemas as declared', async () => {
    const inputSchema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { point: { type: 'object', properties: { x: { type: 'number' } } } },
      properties: { at: { $ref: '#/$defs/point' } },
      additionalProperties: false,
    } as const;
    const outputSchema = {
      type: 'object',
      properties: { count: { type: 'integer' } },
      required: ['count'],
    } as const;
    const { url } = await setup(
      defineTool({
        name: 'picture',
        description: 'A picture with words and a document.',
        inputSchema,
        handler: () =>
          toolOutput({
            content: [
              { type: 'text', text: 'A red dot:' },
              { type: 'image', data: PNG, mimeType: 'image/png' },
              { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
              { type: 'resource', resource: { uri: 'docs://dot', mimeType: 'text/plain', text: 'a dot' } },
              { type: 'resource_link', uri: 'docs://more', name: 'more' },
            ],
          }),
      }),
      defineTool({
        name: 'counted',
        description: 'Structured data, checked against its output schema.',
        inputSchema: none,
        outputSchema,
        handler: () =>
          toolOutput({ content: [{ type: 'text', text: '3 things' }], structuredContent: { count: 3 } }),
      }),
      defineTool({
        name: 'miscounted',
        description: 'Returns data its output schema refuses.',
        inputSchema: none,
        outputSchema,
        handler: () => ({ count: 'three' }),
      }),
    );
    const mcp = await client(url);
    const { tools } = await mcp.listTools();
    expect(tools.find((tool) => tool.name === 'picture')?.inputSchema).toEqual(inputSchema);
    expect(tools.find((tool) => tool.name === 'counted')?.outputSchema).toEqual(outputSchema);
    expect(tools.find((tool) => tool.name === 'echo')?.outputSchema).toBeUndefined();

    const picture = await mcp.callTool({ name: 'picture', arguments: { at: { x: 1 } } });
    expect(picture.isError).toBeFalsy();
    expect(picture.content).toEqual([
      { type: 'text', text: 'A red dot:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'docs://dot', mimeType: 'text/plain', text: 'a dot' } },
      { type: 'resource_link', uri: 'docs://more', name: 'more' },
    ]);
    expect(picture.structuredContent).toBeUndefined();
    const refused = await mcp.callTool({ name: 'picture', arguments: { at: { x: 1 }, extra: true } });
    expect(refused.isError).toBe(true);

    const counted = await mcp.callTool({ name: 'counted', arguments: {} });
    expect(counted).toMatchObject({
      content: [{ type: 'text', text: '3 things' }],
      structuredContent: { count: 3 },
    });
    const miscounted = await mcp.callTool({ name: 'miscounted', arguments: {} });
    expect(miscounted.isError).toBe(true);
    expect(textOf(miscounted)).toContain('does not match its outputSchema');
  });

  it('send progress with the numbers the tool gives, when the client asks for progress', async () => {
    const { url } = await setup(
      defineTool({
        name: 'steps',
        description: 'Reports numbered progress.',
        inputSchema: none,
        handler: (_ctx, { progress }) => {
          progress({ progress: 1, total: 4, message: 'a quarter' });
          progress({ progress: 4, total: 4 });
          progress('and a note');
          return 'done';
        },
      }),
    );
    const mcp = await client(url);
    const updates: unknown[] = [];
    await mcp.callTool({ name: 'steps', arguments: {} }, undefined, {
      onprogress: (update) => updates.push(update),
    });
    expect(updates).toEqual([
      { progress: 1, total: 4, message: 'a quarter' },
      { progress: 4, total: 4 },
      { progress: 5, message: 'and a note' },
    ]);
  });

  it("send log messages at or above the session's level (info until the client sets one)", async () => {
    const { url } = await setup(
      defineTool({
        name: 'chatty',
        description: 'Logs at several levels.',
        inputSchema: none,
        handler: (_ctx, { log }) => {
          log('debug', 'looking closely');
          log('info', 'working', { step: 1 });
          log('warning', 'careful');
          log('error', 'it broke');
          return 'logged';
        },
      }),
    );
    const mcp = await client(url);
    const heard: { level: string; logger?: string; data: unknown }[] = [];
    mcp.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      heard.push(notification.params);
    });
    await mcp.callTool({ name: 'chatty', arguments: {} });
    expect(heard).toEqual([
      { level: 'info', logger: 'chatty', data: { message: 'working', data: { step: 1 } } },
      { level: 'warning', logger: 'chatty', data: 'careful' },
      { level: 'error', logger: 'chatty', data: 'it broke' },
    ]);

    heard.length = 0;
    await mcp.setLoggingLevel('warning');
    await mcp.callTool({ name: 'chatty', arguments: {} });
    expect(heard.map((message) => message.level)).toEqual(['warning', 'error']);

    heard.length = 0;
    await mcp.setLoggingLevel('debug');
    await mcp.callTool({ name: 'chatty', arguments: {} });
    expect(heard.map((message) => message.level)).toEqual(['debug', 'info', 'warning', 'error']);
  });

  it("put a tool's question to the client's user, defaults filled in, and say so when it cannot ask", async () => {
    const { url } = await setup(
      defineTool({
        name: 'ask_name',
        description: 'Asks for a name.',
        inputSchema: none,
        handler: async (_ctx, { elicit }) => {
          const answer = await elicit({
            message: 'Who are you?',
            schema: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                greeting: { type: 'string', default: 'hello' },
              },
              required: ['name'],
            },
          });
          return { action: answer.action, content: answer.content ?? null };
        },
      }),
    );
    const questions: unknown[] = [];
    let answer: ElicitResult = { action: 'accept', content: { name: 'Ada' } };
    const asking = await client(url, { answer: () => answer });
    asking.setRequestHandler(ElicitRequestSchema, (request) => {
      questions.push(request.params);
      return answer;
    });

    const accepted = await asking.callTool({ name: 'ask_name', arguments: {} });
    expect(accepted.structuredContent).toEqual({
      action: 'accept',
      content: { name: 'Ada', greeting: 'hello' },
    });
    expect(questions).toEqual([
      expect.objectContaining({
        message: 'Who are you?',
        requestedSchema: expect.objectContaining({ required: ['name'] }),
      }),
    ]);
    answer = { action: 'decline' };
    const declined = await asking.callTool({ name: 'ask_name', arguments: {} });
    expect(declined.structuredContent).toEqual({ action: 'decline', content: null });

    // A client that did not declare elicitation: the tool hears why, and its call fails with it.
    const unable = await (await client(url)).callTool({ name: 'ask_name', arguments: {} });
    expect(unable.isError).toBe(true);
    expect(textOf(unable)).toContain('did not declare the elicitation capability');
  });

  it("ask the client's model for a completion when it offers sampling, and say so when it does not", async () => {
    const { url } = await setup(
      defineTool({
        name: 'summarize',
        description: "Asks the client's model.",
        inputSchema: none,
        handler: async (_ctx, { sample }) => {
          const answer = await sample({
            messages: [{ role: 'user', content: 'Summarize: the sky is blue.' }],
            system: 'Be brief.',
            maxTokens: 50,
            temperature: 0.2,
          });
          return { text: answer.text, model: answer.model, stopReason: answer.stopReason ?? null };
        },
      }),
    );
    const requests: unknown[] = [];
    const sampling = new Client(
      { name: 'sampling-client', version: '1.0.0' },
      { capabilities: { sampling: {} } },
    );
    await sampling.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    clients.push(sampling);
    sampling.setRequestHandler(CreateMessageRequestSchema, (request) => {
      requests.push(request.params);
      return {
        role: 'assistant',
        content: { type: 'text', text: 'Blue sky.' },
        model: 'client-model',
        stopReason: 'endTurn',
      };
    });
    const result = await sampling.callTool({ name: 'summarize', arguments: {} });
    expect(result.structuredContent).toEqual({
      text: 'Blue sky.',
      model: 'client-model',
      stopReason: 'endTurn',
    });
    expect(requests).toEqual([
      expect.objectContaining({
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarize: the sky is blue.' } }],
        systemPrompt: 'Be brief.',
        maxTokens: 50,
        temperature: 0.2,
      }),
    ]);

    const unable = await client(url);
    const refused = await unable.callTool({ name: 'summarize', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('did not declare the sampling capability');
  });

  it("abort the tool's signal when the client cancels, even while it waits on a question", async () => {
    const asked = gate();
    let aborted!: (reason: unknown) => void;
    const abortedWith = new Promise((resolve) => {
      aborted = resolve;
    });
    const { url } = await setup(
      defineTool({
        name: 'patient',
        description: 'Asks, and waits.',
        inputSchema: none,
        handler: async ({ signal }, { elicit }) => {
          signal.addEventListener('abort', () => aborted(signal.reason));
          return elicit({ message: 'Take your time', schema: none });
        },
      }),
    );
    const mcp = await client(url, {
      answer: async () => {
        asked.open();
        // Never answered: the call is cancelled first.
        return new Promise<ElicitResult>(() => undefined);
      },
    });
    const controller = new AbortController();
    const call = mcp.callTool({ name: 'patient', arguments: {} }, undefined, { signal: controller.signal });
    await asked.opened;
    controller.abort(new Error('no time after all'));
    await expect(call).rejects.toThrow();
    expect(await abortedWith).toBeDefined();
  });

  it("relay an agent's tool questions and log messages to the client (ask_<agent>)", async () => {
    const { url, kernel } = await setup(
      defineTool({
        name: 'confirm',
        description: 'Asks to confirm, and logs.',
        inputSchema: none,
        handler: async (_ctx, { elicit, log }) => {
          log('notice', 'about to ask');
          const answer = await elicit({
            message: 'Go ahead?',
            schema: { type: 'object', properties: { sure: { type: 'boolean' } } },
          });
          return `answered ${answer.action} ${JSON.stringify(answer.content ?? {})}`;
        },
      }),
    );
    const model = new ScriptedModel([{ toolCalls: [{ name: 'confirm', input: {} }] }, 'Confirmed.']);
    await kernel.createAgent({ name: 'careful', model, tools: ['confirm'] });
    const asked: string[] = [];
    const mcp = await client(url, {
      answer: (message) => {
        asked.push(message);
        return { action: 'accept', content: { sure: true } };
      },
    });
    const logs: unknown[] = [];
    mcp.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params);
    });
    const result = await mcp.callTool({ name: 'ask_careful', arguments: { message: 'Do it.' } });
    expect(textOf(result)).toBe('Confirmed.');
    expect(asked).toEqual(['Go ahead?']);
    expect(JSON.stringify(model.requests[1]!.messages)).toContain('answered accept {\\"sure\\":true}');
    expect(logs).toEqual([{ level: 'notice', logger: 'ask_careful', data: 'about to ask' }]);
  });
});
