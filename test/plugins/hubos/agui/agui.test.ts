import {
  type CustomEvent,
  HttpAgent,
  type RunAgentInput,
  type RunErrorEvent,
  type RunFinishedEvent,
  type RunStartedEvent,
  type TextMessageContentEvent,
  type ToolCallArgsEvent,
  type ToolCallResultEvent,
  type ToolCallStartEvent,
} from '@ag-ui/client';
import { AGUI_MEDIA_TYPE } from '@ag-ui/encoder';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineTool } from '../../../../core/index.ts';
import { deferred, ofType, runWith, type Served, serveAgent, shape } from './helpers.ts';

const weather = defineTool({
  name: 'weather_get',
  description: 'The weather in a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  handler: (_ctx, { input }) => ({ city: input.city, sky: 'sunny' }),
});

/** The official client, asking for protobuf instead of SSE. */
class ProtoAgent extends HttpAgent {
  protected override requestInit(input: RunAgentInput): RequestInit {
    const init = super.requestInit(input);
    return { ...init, headers: { ...(init.headers as Record<string, string>), Accept: AGUI_MEDIA_TYPE } };
  }
}

let served: Served | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await served?.close();
  served = undefined;
});

describe('POST /agui/<name> with the official HttpAgent', () => {
  it('streams a whole run: text, a tool call with its result, more text', async () => {
    served = await serveAgent(
      [
        {
          text: 'Let me check.',
          toolCalls: [{ id: 'call_w', name: 'weather_get', input: { city: 'Paris' } }],
        },
        'It is sunny in Paris.',
      ],
      [weather],
    );
    const agent = served.client();
    const { events, result, error } = await runWith(agent, 'Weather in Paris?');
    expect(error).toBeUndefined();
    expect(shape(events)).toEqual([
      'RUN_STARTED',
      'CUSTOM',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'STEP_FINISHED',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
      'RUN_FINISHED',
    ]);
    const started = ofType<RunStartedEvent>(events, 'RUN_STARTED')[0]!;
    expect(started).toMatchObject({ threadId: agent.threadId, protocolVersion: '1.0' });
    const finished = ofType<RunFinishedEvent>(events, 'RUN_FINISHED')[0]!;
    expect(finished).toMatchObject({ threadId: agent.threadId, runId: started.runId });
    expect(finished.outcome).toEqual({ type: 'success' });
    expect(finished.usage?.[0]).toMatchObject({ provider: 'scripted', inputTokens: 20, outputTokens: 10 });
    // The HubOS run behind it is named, and its record is readable by that id.
    const run = ofType<CustomEvent>(events, 'CUSTOM').find((event) => event.name === 'hubos.run')!;
    const { runId } = run.value as { runId: string };
    const record = await (await fetch(`${served.url}/api/runs/${runId}`)).json();
    expect(record).toMatchObject({ id: runId, agent: 'helper', via: 'ag-ui', status: 'completed' });

    const deltas = ofType<TextMessageContentEvent>(events, 'TEXT_MESSAGE_CONTENT');
    expect(deltas.length).toBeGreaterThan(2); // streamed word by word, not in one piece
    expect(deltas.map((event) => event.delta).join('')).toBe('Let me check.It is sunny in Paris.');
    const call = ofType<ToolCallStartEvent>(events, 'TOOL_CALL_START')[0]!;
    expect(call).toMatchObject({ toolCallId: 'call_w', toolCallName: 'weather_get' });
    const args = ofType<ToolCallArgsEvent>(events, 'TOOL_CALL_ARGS').map((event) => event.delta);
    expect(JSON.parse(args.join(''))).toEqual({ city: 'Paris' });
    const toolResult = ofType<ToolCallResultEvent>(events, 'TOOL_CALL_RESULT')[0]!;
    expect(toolResult.toolCallId).toBe('call_w');
    expect(JSON.parse(toolResult.content as string)).toEqual({ city: 'Paris', sky: 'sunny' });

    // The client rebuilt the conversation: the step's text and its call in one assistant message.
    expect(result!.newMessages).toMatchObject([
      {
        role: 'assistant',
        content: 'Let me check.',
        toolCalls: [{ id: 'call_w', function: { name: 'weather_get' } }],
      },
      { role: 'tool', toolCallId: 'call_w' },
      { role: 'assistant', content: 'It is sunny in Paris.' },
    ]);
    served.model.assertConsumed();
  });

  it('continues the thread: threadId is the session, only the new message is the input', async () => {
    served = await serveAgent(['Hello Ada.', 'You are Ada.', 'I do not know.']);
    const agent = served.client();
    await runWith(agent, 'Hi, I am Ada.');
    const { result } = await runWith(agent, 'What is my name?');
    expect(result!.newMessages).toMatchObject([{ role: 'assistant', content: 'You are Ada.' }]);
    expect(served.model.requests[1]!.messages).toEqual([
      { role: 'user', content: 'Hi, I am Ada.' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
    // Another thread is another conversation.
    await runWith(served.client(), 'What is my name?');
    expect(served.model.requests[2]!.messages).toEqual([{ role: 'user', content: 'What is my name?' }]);
  });

  it('ends with RUN_ERROR when the model fails', async () => {
    served = await serveAgent([{ error: 'upstream exploded' }]);
    const { events, error } = await runWith(served.client(), 'Hi');
    expect(shape(events)).toEqual(['RUN_STARTED', 'CUSTOM', 'STEP_STARTED', 'RUN_ERROR']);
    expect(ofType<RunErrorEvent>(events, 'RUN_ERROR')[0]).toMatchObject({
      code: 'MODEL_HTTP_ERROR',
      message: expect.stringContaining('upstream exploded'),
    });
    expect(error).toBeUndefined(); // the client reports RUN_ERROR as an event, not by rejecting
  });

  it('cancels the run when the client disconnects: the tool sees its signal abort', async () => {
    const started = deferred();
    const aborted = deferred<unknown>();
    const wait = defineTool({
      name: 'wait_forever',
      description: 'Waits until cancelled.',
      inputSchema: { type: 'object', properties: {} },
      handler: ({ signal }) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => {
            aborted.resolve(signal.reason);
            reject(signal.reason);
          });
          started.resolve();
        }),
    });
    served = await serveAgent([{ toolCalls: [{ name: 'wait_forever' }] }, 'never'], [wait]);
    const agent = served.client();
    const run = runWith(agent, 'Wait.');
    await started.promise;
    agent.abortRun();
    await expect(aborted.promise).resolves.toBeDefined();
    await run;
    expect(served.model.requests).toHaveLength(1);
  });

  it('answers 404 JSON for an unknown agent', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined); // the client logs the failure
    served = await serveAgent(['unused']);
    const { error } = await runWith(served.client('nobody'), 'Hi');
    expect(error).toMatchObject({ status: 404, payload: { error: { code: 'AGENT_NOT_FOUND' } } });
  });

  it('encodes protobuf when the Accept header asks for it, and the client decodes it', async () => {
    served = await serveAgent(['Hello there.']);
    const agent = new ProtoAgent({ url: `${served.url}/agui/helper` });
    const contentType = deferred<string | null>();
    agent.fetch = async (url, init) => {
      const response = await fetch(url, init);
      contentType.resolve(response.headers.get('content-type'));
      return response;
    };
    const { events, error } = await runWith(agent, 'Hi');
    expect(error).toBeUndefined();
    expect(await contentType.promise).toBe('application/vnd.ag-ui.event+proto');
    expect(shape(events)).toEqual([
      'RUN_STARTED',
      'CUSTOM',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
      'RUN_FINISHED',
    ]);
  });

  it('documents the route in the OpenAPI document', async () => {
    served = await serveAgent(['unused']);
    expect(served.hubos.docs).toContainEqual(
      expect.objectContaining({ method: 'post', path: '/agui/{name}', tags: ['ag-ui'], sse: true }),
    );
  });
});

describe('bad input', () => {
  const post = (body: string) =>
    fetch(`${served!.url}/agui/helper`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body,
    });
  const run = (extra: object) =>
    JSON.stringify({
      threadId: 'thread-1',
      runId: 'run-1',
      messages: [{ id: 'm1', role: 'user', content: 'Hi' }],
      ...extra,
    });

  it.each([
    ['not JSON', 'nope{', 'INVALID_JSON'],
    ['not a RunAgentInput', JSON.stringify({ messages: 'no' }), 'INVALID_BODY'],
    ['a threadId that is not a session id', run({ threadId: '../etc' }), 'INVALID_BODY'],
    ['nothing new to answer', run({ messages: [{ id: 'a', role: 'assistant', content: 'Hi' }] }), 'NO_INPUT'],
    [
      'a client tool named like a server tool',
      run({ tools: [{ name: 'weather_get', description: 'x' }] }),
      'TOOL_CONFLICT',
    ],
    [
      'a client tool with a bad name',
      run({ tools: [{ name: 'no spaces', description: 'x' }] }),
      'INVALID_BODY',
    ],
  ])('answers 400 JSON for %s', async (_label, body, code) => {
    served = await serveAgent([], [weather]);
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code, message: expect.any(String) } });
    expect(served.model.requests).toHaveLength(0);
  });

  it('answers 404 JSON for an unknown agent before reading the body', async () => {
    served = await serveAgent([]);
    const response = await fetch(`${served.url}/agui/nobody`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'nope{',
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'AGENT_NOT_FOUND' } });
  });
});
