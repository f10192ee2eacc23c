import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type AgentEvent,
  DEFAULT_MAX_STEPS,
  HubosError,
  type Kernel,
  type Message,
  type ModelChunk,
} from '../../core/index.ts';
import { expectHubosRejection } from '../core/helpers.ts';
import { barrier, bootAgent, makeTool, sleep } from './helpers.ts';

const kernels: Kernel[] = [];
async function setup(...args: Parameters<typeof bootAgent>) {
  const booted = await bootAgent(...args);
  kernels.push(booted.kernel);
  return booted;
}

afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

const toolMessages = (messages: Message[]) =>
  messages.filter((m): m is Extract<Message, { role: 'tool' }> => m.role === 'tool');

const noteTool = (
  handler = vi.fn((_ctx: unknown, tc: { input: { text: string } }) => ({ saved: tc.input.text })),
) =>
  makeTool('notes_add', handler as never, {
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
  });

describe('agent loop: answers', () => {
  it('returns a plain answer in one step', async () => {
    const { agent, model } = await setup({
      script: [{ text: 'Hello there.', usage: { inputTokens: 12, outputTokens: 3 } }],
    });
    const result = await agent.run('Hi');
    expect(result).toMatchObject({
      agent: 'assistant',
      status: 'completed',
      stopReason: 'stop',
      text: 'Hello there.',
      steps: 1,
      toolCalls: [],
      usage: { inputTokens: 12, outputTokens: 3 },
    });
    expect(result.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.sessionId).toBeUndefined();
    expect(result.messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello there.' },
    ]);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.messages).toEqual([{ role: 'user', content: 'Hi' }]);
    model.assertConsumed();
  });

  it('sends the instructions, tools and sampling settings of the template', async () => {
    const { agent, model } = await setup({
      script: ['ok'],
      tools: [noteTool()],
      template: { instructions: 'Be brief.', temperature: 0.2, maxTokens: 99 },
    });
    await agent.run('Hi');
    const request = model.requests[0]!;
    expect(request.system).toBe('Be brief.');
    expect(request.temperature).toBe(0.2);
    expect(request.maxTokens).toBe(99);
    expect(request.tools).toEqual([
      { name: 'notes_add', description: 'The notes_add tool.', inputSchema: noteTool().inputSchema },
    ]);
    expect(request.signal).toBeInstanceOf(AbortSignal);
  });

  it('rejects an empty input with AGENT_INVALID', async () => {
    const { agent } = await setup({ script: [] });
    await expectHubosRejection(agent.run('  '), 'AGENT_INVALID');
    await expectHubosRejection(async () => {
      for await (const _event of agent.stream('')) expect.unreachable();
    }, 'AGENT_INVALID');
  });

  it('runs a tool call, gives the result to the model, and sums usage over the steps', async () => {
    const handler = vi.fn((_ctx: unknown, tc: { input: { text: string } }) => ({ saved: tc.input.text }));
    const { agent, model } = await setup({
      tools: [noteTool(handler)],
      script: [
        {
          toolCalls: [{ id: 'c1', name: 'notes_add', input: { text: 'milk' } }],
          usage: { inputTokens: 3, outputTokens: 4 },
        },
        { text: 'Saved it.', usage: { inputTokens: 7, outputTokens: 1 } },
      ],
    });
    const result = await agent.run('Note milk');
    expect(result.status).toBe('completed');
    expect(result.stopReason).toBe('stop');
    expect(result.text).toBe('Saved it.');
    expect(result.steps).toBe(2);
    expect(result.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
    expect(handler).toHaveBeenCalledOnce();
    expect(result.toolCalls).toEqual([
      {
        id: 'c1',
        name: 'notes_add',
        input: { text: 'milk' },
        ok: true,
        output: { saved: 'milk' },
        durationMs: expect.any(Number),
      },
    ]);
    const expected: Message[] = [
      { role: 'user', content: 'Note milk' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'notes_add', input: { text: 'milk' } }],
      },
      { role: 'tool', toolCallId: 'c1', name: 'notes_add', content: '{"saved":"milk"}' },
    ];
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.messages).toEqual(expected);
    expect(result.messages).toEqual([...expected, { role: 'assistant', content: 'Saved it.' }]);
  });

  it('passes string tool output through as is and other output as JSON', async () => {
    const { agent, model } = await setup({
      tools: [makeTool('text', () => 'plain words'), makeTool('nothing', () => undefined)],
      script: [{ toolCalls: [{ name: 'text' }, { name: 'nothing' }] }, 'ok'],
    });
    await agent.run('go');
    expect(toolMessages(model.requests[1]!.messages).map((m) => m.content)).toEqual(['plain words', 'null']);
  });
});

describe('agent loop: concurrent tool calls', () => {
  it('runs the calls of one turn concurrently', async () => {
    // Each tool waits until both have started: run one after the other, the first would time out.
    const bothStarted = barrier(2, 1_000);
    const tool = (name: string) =>
      makeTool(name, async () => {
        await bothStarted.wait();
        return `${name} done`;
      });
    const { agent, model } = await setup({
      tools: [tool('left'), tool('right')],
      script: [{ toolCalls: [{ name: 'left' }, { name: 'right' }] }, 'both done'],
    });
    const result = await agent.run('go');
    expect(result.toolCalls.map((c) => [c.name, c.ok, c.output])).toEqual([
      ['left', true, 'left done'],
      ['right', true, 'right done'],
    ]);
    // The results reach the model in call order, whatever order they finished in.
    expect(toolMessages(model.requests[1]!.messages).map((m) => m.name)).toEqual(['left', 'right']);
  });

  it('runs a tool with concurrent: false alone, between the calls around it', async () => {
    const log: string[] = [];
    let active = 0;
    let maxActive = 0;
    const firstPair = barrier(2, 1_000);
    const tool = (name: string, concurrent = true, wait?: () => Promise<void>) =>
      makeTool(
        name,
        async () => {
          active++;
          maxActive = Math.max(maxActive, active);
          log.push(`start ${name}`);
          await (wait ? wait() : sleep(10));
          log.push(`end ${name}`);
          active--;
          return name;
        },
        { concurrent },
      );
    const { agent } = await setup({
      tools: [
        tool('a', true, () => firstPair.wait()),
        tool('b', true, () => firstPair.wait()),
        tool('solo', false),
        tool('c'),
        tool('d'),
      ],
      script: [
        { toolCalls: [{ name: 'a' }, { name: 'b' }, { name: 'solo' }, { name: 'c' }, { name: 'd' }] },
        'done',
      ],
    });
    const result = await agent.run('go');
    expect(result.toolCalls.every((c) => c.ok)).toBe(true);
    expect(maxActive).toBe(2);
    // Everything before `solo` has ended when it starts; nothing after it starts before it ends.
    const soloStart = log.indexOf('start solo');
    expect(log[soloStart + 1]).toBe('end solo');
    expect(log.slice(0, soloStart).sort()).toEqual(['end a', 'end b', 'start a', 'start b']);
    expect(log.slice(soloStart + 2).sort()).toEqual(['end c', 'end d', 'start c', 'start d']);
    // c and d overlap again after solo.
    expect(log.slice(soloStart + 2, soloStart + 4)).toEqual(['start c', 'start d']);
  });
});

describe('agent loop: tool errors the model can read', () => {
  it('turns a throwing tool into an error result and continues', async () => {
    const { agent, model } = await setup({
      tools: [
        makeTool('disk', () => {
          throw new Error('disk full');
        }),
      ],
      script: [{ toolCalls: [{ id: 'c1', name: 'disk' }] }, 'Sorry, the disk is full.'],
    });
    const result = await agent.run('save');
    expect(result.status).toBe('completed');
    expect(result.text).toBe('Sorry, the disk is full.');
    expect(result.toolCalls[0]).toMatchObject({
      ok: false,
      error: { code: 'TOOL_FAILED', message: 'tool "disk" failed: disk full' },
    });
    expect(toolMessages(model.requests[1]!.messages)).toEqual([
      {
        role: 'tool',
        toolCallId: 'c1',
        name: 'disk',
        content: 'Error: tool "disk" failed: disk full',
        isError: true,
      },
    ]);
  });

  it('rejects input that violates the schema, naming the field, without calling the handler', async () => {
    const handler = vi.fn(() => 'never');
    const { agent, model } = await setup({
      tools: [
        makeTool('count', handler, {
          inputSchema: {
            type: 'object',
            properties: { count: { type: 'integer' } },
            required: ['count'],
          },
        }),
      ],
      script: [{ toolCalls: [{ name: 'count', input: { count: 'three' } }] }, 'ok'],
    });
    const result = await agent.run('count');
    expect(handler).not.toHaveBeenCalled();
    expect(result.toolCalls[0]).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
    const [message] = toolMessages(model.requests[1]!.messages);
    expect(message!.isError).toBe(true);
    expect(message!.content).toMatch(/^Error: invalid input for tool "count": "count" must be integer, got/);
  });

  it('answers an unknown tool name with the available tools', async () => {
    const { agent, model } = await setup({
      tools: [makeTool('alpha'), makeTool('beta')],
      script: [{ toolCalls: [{ name: 'gamma' }] }, 'ok'],
    });
    const result = await agent.run('go');
    expect(result.toolCalls[0]).toMatchObject({ ok: false, error: { code: 'TOOL_NOT_FOUND' } });
    expect(toolMessages(model.requests[1]!.messages)[0]!.content).toBe(
      'Error: no tool named "gamma" is available (available: alpha, beta)',
    );
  });

  it('answers arguments that are not JSON with an error result', async () => {
    const handler = vi.fn(() => 'never');
    const chunks: ModelChunk[] = [
      { type: 'tool-call-start', id: 'c1', name: 'alpha' },
      { type: 'tool-call', id: 'c1', name: 'alpha', input: '{"city": "Par' },
      { type: 'finish', finishReason: 'tool-calls' },
    ];
    const { agent, model } = await setup({ tools: [makeTool('alpha', handler)], script: [{ chunks }, 'ok'] });
    const result = await agent.run('go');
    expect(handler).not.toHaveBeenCalled();
    expect(result.toolCalls[0]).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
    const content = toolMessages(model.requests[1]!.messages)[0]!.content;
    expect(content).toContain('the arguments for "alpha" are not valid JSON');
    expect(content).toContain('{"city": "Par');
  });
});

describe('agent loop: stopping', () => {
  const forever = (n: number) => Array.from({ length: n }, () => ({ toolCalls: [{ name: 'tick' }] }));

  it(`stops after ${DEFAULT_MAX_STEPS} steps by default with stopReason max-steps`, async () => {
    const tick = vi.fn(() => 'tock');
    const { agent, model } = await setup({
      tools: [makeTool('tick', tick)],
      script: forever(DEFAULT_MAX_STEPS),
    });
    const result = await agent.run('loop');
    expect(result).toMatchObject({ status: 'completed', stopReason: 'max-steps', steps: DEFAULT_MAX_STEPS });
    expect(tick).toHaveBeenCalledTimes(DEFAULT_MAX_STEPS);
    model.assertConsumed();
  });

  it('honours maxSteps of the template and of the run', async () => {
    const { agent, model } = await setup({
      tools: [makeTool('tick')],
      template: { maxSteps: 3 },
      script: forever(5),
    });
    expect(await agent.run('loop')).toMatchObject({ stopReason: 'max-steps', steps: 3 });
    expect(model.requests).toHaveLength(3);
    expect(await agent.run('loop', { maxSteps: 2 })).toMatchObject({ stopReason: 'max-steps', steps: 2 });
    model.assertConsumed();
  });

  it("keeps the model's own finish reason when it stops", async () => {
    const { agent } = await setup({ script: [{ text: 'cut off', finishReason: 'length' }] });
    expect(await agent.run('go')).toMatchObject({ status: 'completed', stopReason: 'length' });
  });

  it('rejects run() with a HubosError when the model fails', async () => {
    const { agent } = await setup({ script: [{ error: 'boom' }] });
    const error = await expectHubosRejection(agent.run('go'), 'MODEL_HTTP_ERROR');
    expect(error.message).toBe('boom');
    expect(error.details.result).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      error: { code: 'MODEL_HTTP_ERROR', message: 'boom' },
    });
  });

  it('ends the stream with run-error when the model fails', async () => {
    const { agent } = await setup({ script: [{ error: new Error('socket hang up') }] });
    const events: AgentEvent[] = [];
    for await (const event of agent.stream('go')) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['run-start', 'step-start', 'run-error']);
    const last = events.at(-1) as Extract<AgentEvent, { type: 'run-error' }>;
    expect(last.error).toEqual({ code: 'RUN_FAILED', message: 'socket hang up' });
    expect(last.result.status).toBe('failed');
  });

  it('fails when the model stream ends without a finish chunk', async () => {
    const { agent } = await setup({ script: [{ chunks: [{ type: 'text-delta', delta: 'half' }] }] });
    const error = await expectHubosRejection(agent.run('go'), 'MODEL_RESPONSE_INVALID');
    expect(error.message).toContain('without a finish reason');
  });
});

describe('agent loop: events', () => {
  it('streams the run in order', async () => {
    const { agent } = await setup({
      tools: [makeTool('lookup', () => 42)],
      script: [
        { text: 'Let me check.', toolCalls: [{ id: 'c1', name: 'lookup', input: { q: 'x' } }] },
        'All done.',
      ],
    });
    const events: AgentEvent[] = [];
    for await (const event of agent.stream('go', { sessionId: 's1' })) events.push(event);
    expect(events.map((e) => (e.type === 'text-delta' ? `text:${e.delta}` : e.type))).toEqual([
      'run-start',
      'step-start',
      'text:Let ',
      'text:me ',
      'text:check.',
      'tool-call-start',
      'tool-call-end',
      'tool-result',
      'step-finish',
      'step-start',
      'text:All ',
      'text:done.',
      'step-finish',
      'run-finish',
    ]);
    const runId = events[0]!.runId;
    expect(events.every((e) => e.runId === runId)).toBe(true);
    expect(events[0]).toEqual({
      type: 'run-start',
      runId,
      agent: 'assistant',
      sessionId: 's1',
      model: 'scripted:scripted',
    });
    const byType = <T extends AgentEvent['type']>(type: T) =>
      events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
    expect(byType('step-start').map((e) => e.step)).toEqual([1, 2]);
    expect(byType('tool-call-end')[0]).toMatchObject({
      step: 1,
      id: 'c1',
      name: 'lookup',
      input: { q: 'x' },
    });
    expect(byType('tool-result')[0]!.call).toMatchObject({ id: 'c1', ok: true, output: 42 });
    expect(byType('step-finish').map((e) => e.finishReason)).toEqual(['tool-calls', 'stop']);
    const finish = byType('run-finish')[0]!;
    expect(finish.result).toMatchObject({
      status: 'completed',
      text: 'All done.',
      steps: 2,
      sessionId: 's1',
    });
  });

  it('streams tool-call-args deltas from the model', async () => {
    const { agent } = await setup({
      tools: [makeTool('lookup')],
      script: [
        {
          chunks: [
            { type: 'tool-call-start', id: 'c1', name: 'lookup' },
            { type: 'tool-call-delta', id: 'c1', delta: '{"q":' },
            { type: 'tool-call-delta', id: 'c1', delta: '1}' },
            { type: 'tool-call', id: 'c1', name: 'lookup', input: { q: 1 } },
            // Some servers say "stop" while asking for tools: the calls decide.
            { type: 'finish', finishReason: 'stop' },
          ],
        },
        'ok',
      ],
    });
    const deltas: string[] = [];
    let firstFinish: string | undefined;
    for await (const event of agent.stream('go')) {
      if (event.type === 'tool-call-args') deltas.push(event.delta);
      if (event.type === 'step-finish') firstFinish ??= event.finishReason;
    }
    expect(deltas).toEqual(['{"q":', '1}']);
    expect(firstFinish).toBe('tool-calls');
  });
});

describe('agent loop: tool selection', () => {
  it('shows the agent only the tools its globs select', async () => {
    const { agent, model } = await setup({
      tools: [makeTool('notes_add'), makeTool('clock_now'), makeTool('notes_list')],
      template: { tools: ['notes_*'] },
      script: [{ toolCalls: [{ name: 'clock_now' }] }, 'ok'],
    });
    expect(agent.tools.map((t) => t.name)).toEqual(['notes_add', 'notes_list']);
    const result = await agent.run('what time is it?');
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['notes_add', 'notes_list']);
    // A registered tool outside the selection cannot be called.
    expect(result.toolCalls[0]!.error!.message).toBe(
      'no tool named "clock_now" is available (available: notes_add, notes_list)',
    );
  });

  it('gives an agent without `tools` none', async () => {
    const { kernel, model } = await setup({ script: ['ok'], template: {} });
    kernel.registry.register(makeTool('late'));
    const agent = await kernel.createAgent({ name: 'other', model });
    expect(agent.tools).toEqual([]);
    await agent.run('hi');
    expect(model.requests[0]!.tools).toEqual([]);
  });

  it('selects every tool with "*" and single characters with "?"', async () => {
    const { kernel } = await setup({
      tools: [makeTool('a1'), makeTool('a22'), makeTool('b1')],
      template: { tools: ['*'] },
      script: [],
    });
    expect(kernel.agent('assistant').tools.map((t) => t.name)).toEqual(['a1', 'a22', 'b1']);
    const model = kernel.agent('assistant').model;
    const picky = await kernel.createAgent({ name: 'picky', model, tools: ['a?'] });
    expect(picky.tools.map((t) => t.name)).toEqual(['a1']);
  });

  it('reports a failed run as HubosError, never as a plain Error', async () => {
    const { agent } = await setup({ script: [{ error: new TypeError('bad') }] });
    await expect(agent.run('go')).rejects.toBeInstanceOf(HubosError);
  });
});
