import { afterEach, describe, expect, it } from 'vitest';
import {
  type AgentEvent,
  type ApprovalRequestEvent,
  type ElicitRequest,
  type ElicitResult,
  HubosError,
  type Kernel,
  type SampleRequest,
  type ToolContext,
} from '../../core/index.ts';
import { invokeTool } from '../../testing/index.ts';
import { bootAgent, deferred, makeTool } from '../agent/helpers.ts';
import { expectHubosRejection } from './helpers.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

async function setup(...args: Parameters<typeof bootAgent>) {
  const booted = await bootAgent(...args);
  kernels.push(booted.kernel);
  return booted;
}

const QUESTION: ElicitRequest = {
  message: 'Which account should be charged?',
  schema: {
    type: 'object',
    properties: {
      account: { type: 'string', minLength: 1 },
      copies: { type: 'integer', minimum: 1, default: 1 },
      express: { type: 'boolean', default: false },
    },
    required: ['account'],
  },
};

/** A tool that asks `QUESTION` (or several) and returns what it was told. */
function askingTool(questions: ElicitRequest[] = [QUESTION]) {
  const answers: ElicitResult[] = [];
  const tool = makeTool('order', async (_ctx, tc) => {
    for (const question of questions) answers.push(await tc.elicit(question));
    return { answers };
  });
  return { tool, answers };
}

/** Runs the agent, answering each approval request with `answer` (which may throw; the error is kept). */
async function runAnswering(
  agent: Awaited<ReturnType<typeof setup>>['agent'],
  answer: (event: ApprovalRequestEvent) => Promise<unknown> | undefined,
) {
  const events: AgentEvent[] = [];
  const answered: Promise<unknown>[] = [];
  const result = await agent.run('go', {
    onEvent: (event) => {
      events.push(event);
      if (event.type === 'approval-request') answered.push(Promise.resolve(answer(event)));
    },
  });
  return { result, events, answered: await Promise.all(answered) };
}

describe('tc.elicit in an agent run', () => {
  it('asks as an approval request carrying the question; approving with content answers it, defaults filled in', async () => {
    const { tool, answers } = askingTool();
    const { agent } = await setup({
      tools: [tool],
      script: [{ toolCalls: [{ name: 'order', id: 'c1' }] }, 'Ordered.'],
    });
    const { result, events } = await runAnswering(agent, (event) =>
      agent.approve(event.runId, event.callId, { approved: true, content: { account: 'ACME' } }),
    );
    expect(answers).toEqual([{ action: 'accept', content: { account: 'ACME', copies: 1, express: false } }]);
    const request = events.find((e) => e.type === 'approval-request');
    expect(request).toMatchObject({
      callId: 'c1.ask-1',
      tool: 'order',
      permissions: [],
      question: QUESTION,
    });
    expect(events.find((e) => e.type === 'approval-result')).toMatchObject({
      callId: 'c1.ask-1',
      status: 'approved',
      answer: { account: 'ACME', copies: 1, express: false },
    });
    const stored = await agent.approvals.get(result.runId, 'c1.ask-1');
    expect(stored).toMatchObject({ status: 'approved', question: QUESTION, answer: { account: 'ACME' } });
    expect(result.toolCalls[0]).toMatchObject({ ok: true });
  });

  it('refuses an answer that does not fit, saying what is wrong; the question stays pending', async () => {
    const { tool, answers } = askingTool();
    const { agent } = await setup({
      tools: [tool],
      script: [{ toolCalls: [{ name: 'order', id: 'c1' }] }, 'Ordered.'],
    });
    const refusals: HubosError[] = [];
    await runAnswering(agent, async (event) => {
      for (const content of [{ copies: 2 }, { account: 'ACME', copies: 'two' }, [1] as never]) {
        const error = await expectHubosRejection(
          agent.approve(event.runId, event.callId, { approved: true, content }),
          'APPROVAL_ANSWER_INVALID',
        );
        refusals.push(error);
        expect(agent.approvals.isWaiting(event.runId, event.callId)).toBe(true);
        expect(await agent.approvals.get(event.runId, event.callId)).toMatchObject({ status: 'pending' });
      }
      return agent.approve(event.runId, event.callId, {
        approved: true,
        content: { account: 'ACME', copies: 2 },
      });
    });
    expect(refusals[0]!.message).toContain('"Which account should be charged?"');
    expect(refusals[0]!.message).toContain('account');
    expect(refusals[1]!.message).toContain('copies');
    expect(refusals[2]!.message).toContain('must be an object');
    expect(refusals[0]!.status).toBe(400);
    expect(answers).toEqual([{ action: 'accept', content: { account: 'ACME', copies: 2, express: false } }]);
  });

  it('denying declines, with the reason', async () => {
    const { tool, answers } = askingTool();
    const { agent } = await setup({
      tools: [tool],
      script: [{ toolCalls: [{ name: 'order', id: 'c1' }] }, 'Not ordered.'],
    });
    await runAnswering(agent, (event) =>
      agent.approve(event.runId, event.callId, { approved: false, reason: 'not now' }),
    );
    expect(answers).toEqual([{ action: 'decline', reason: 'not now' }]);
  });

  it('nobody answering in time cancels', async () => {
    const { tool, answers } = askingTool();
    const { agent } = await setup({
      tools: [tool],
      config: { permissions: { approvalTimeoutMs: 20 } },
      script: [{ toolCalls: [{ name: 'order', id: 'c1' }] }, 'Nobody answered.'],
    });
    const { events } = await runAnswering(agent, () => undefined);
    expect(answers).toEqual([{ action: 'cancel', reason: 'nobody answered within 20 ms' }]);
    expect(events.find((e) => e.type === 'approval-result')).toMatchObject({ status: 'expired' });
  });

  it('cancelling the run cancels the question', async () => {
    const { tool, answers } = askingTool();
    const { agent } = await setup({ tools: [tool], script: [{ toolCalls: [{ name: 'order' }] }] });
    const controller = new AbortController();
    const result = await agent.run('go', {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'approval-request') controller.abort();
      },
    });
    expect(result.status).toBe('cancelled');
    expect(answers).toEqual([{ action: 'cancel', reason: 'the run ended before an answer came' }]);
  });

  it("the tool's own signal withdraws the question", async () => {
    const withdrawn = new AbortController();
    let answer: ElicitResult | undefined;
    const tool = makeTool('order', async (_ctx, tc) => {
      answer = await tc.elicit(QUESTION, { signal: withdrawn.signal });
      return 'done';
    });
    const { agent } = await setup({ tools: [tool], script: [{ toolCalls: [{ name: 'order' }] }, 'ok'] });
    const { events } = await runAnswering(agent, () => {
      withdrawn.abort();
      return undefined;
    });
    expect(answer).toMatchObject({ action: 'cancel' });
    expect(events.find((e) => e.type === 'approval-result')).toMatchObject({ status: 'cancelled' });
  });

  it('a call may ask twice: each question has its own id', async () => {
    const second: ElicitRequest = {
      message: 'Gift wrap?',
      schema: {
        type: 'object',
        properties: { wrap: { type: 'string', enum: ['none', 'paper', 'box'], default: 'none' } },
      },
    };
    const { tool, answers } = askingTool([QUESTION, second]);
    const { agent } = await setup({
      tools: [tool],
      script: [{ toolCalls: [{ name: 'order', id: 'c1' }] }, 'Ordered.'],
    });
    const { events } = await runAnswering(agent, (event) =>
      agent.approve(event.runId, event.callId, {
        approved: true,
        content: event.callId.endsWith('1') ? { account: 'ACME' } : {},
      }),
    );
    expect(events.filter((e) => e.type === 'approval-request').map((e) => e.callId)).toEqual([
      'c1.ask-1',
      'c1.ask-2',
    ]);
    expect(answers.map((a) => a.content)).toEqual([
      { account: 'ACME', copies: 1, express: false },
      { wrap: 'none' },
    ]);
  });

  it('a question that is not a message and an object schema fails the call with TOOL_INVALID', async () => {
    const errors: unknown[] = [];
    const tool = makeTool('order', async (_ctx, tc) => {
      for (const bad of [
        { message: '', schema: QUESTION.schema },
        { message: 'Which?', schema: { type: 'string' } },
        { message: 'Which?', schema: { type: 'object', properties: { a: { type: 'nope' } } } },
      ])
        await tc.elicit(bad as ElicitRequest).catch((error: unknown) => errors.push(error));
      return 'asked nothing';
    });
    const { agent } = await setup({ tools: [tool], script: [{ toolCalls: [{ name: 'order' }] }, 'ok'] });
    const { events } = await runAnswering(agent, () => undefined);
    expect(errors.map((e) => HubosError.is(e) && e.code)).toEqual([
      'TOOL_INVALID',
      'TOOL_INVALID',
      'TOOL_INVALID',
    ]);
    expect(events.some((e) => e.type === 'approval-request')).toBe(false);
  });

  it('a question may declare JSON Schema 2020-12', async () => {
    const { tool, answers } = askingTool([
      {
        message: 'Name?',
        schema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          properties: { name: { type: 'string' } },
          required: ['name'],
        },
      },
    ]);
    const { agent } = await setup({ tools: [tool], script: [{ toolCalls: [{ name: 'order' }] }, 'ok'] });
    await runAnswering(agent, (event) =>
      agent.approve(event.runId, event.callId, { approved: true, content: { name: 'Ada' } }),
    );
    expect(answers).toEqual([{ action: 'accept', content: { name: 'Ada' } }]);
  });

  it('RunOptions.interaction sends the questions elsewhere', async () => {
    const { tool, answers } = askingTool();
    const { agent } = await setup({ tools: [tool], script: [{ toolCalls: [{ name: 'order' }] }, 'ok'] });
    const asked: ElicitRequest[] = [];
    const { events } = await (async () => {
      const events: AgentEvent[] = [];
      await agent.run('go', {
        onEvent: (event) => events.push(event),
        interaction: {
          elicit: async (request) => {
            asked.push(request);
            return { action: 'accept', content: { account: 'elsewhere' } };
          },
        },
      });
      return { events };
    })();
    expect(asked).toEqual([QUESTION]);
    expect(answers).toEqual([{ action: 'accept', content: { account: 'elsewhere' } }]);
    expect(events.some((e) => e.type === 'approval-request')).toBe(false);
  });
});

describe('tc.log in an agent run', () => {
  it('emits tool-log events of the call while it runs; later ones are dropped', async () => {
    let late: ToolContext['log'] | undefined;
    const tool = makeTool('work', (_ctx, tc) => {
      tc.log('info', 'starting');
      tc.log('warning', 'slow disk', { ms: 900 });
      late = tc.log;
      return 'done';
    });
    const { agent } = await setup({
      tools: [tool],
      script: [{ toolCalls: [{ name: 'work', id: 'c1' }] }, 'ok'],
    });
    const events: AgentEvent[] = [];
    for await (const event of agent.stream('go')) {
      events.push(event);
      if (event.type === 'tool-result') late?.('error', 'too late');
    }
    const runId = events[0]!.runId;
    expect(events.filter((e) => e.type === 'tool-log')).toEqual([
      { type: 'tool-log', runId, step: 1, callId: 'c1', tool: 'work', level: 'info', message: 'starting' },
      {
        type: 'tool-log',
        runId,
        step: 1,
        callId: 'c1',
        tool: 'work',
        level: 'warning',
        message: 'slow disk',
        data: { ms: 900 },
      },
    ]);
  });
});

describe('tc.sample in an agent run', () => {
  it("the run's model answers, without tools; its tokens count toward the run", async () => {
    const request: SampleRequest = {
      system: 'You write haiku.',
      messages: [{ role: 'user', content: 'A haiku about otters.' }],
      maxTokens: 60,
      temperature: 0.2,
    };
    let sampled: unknown;
    const tool = makeTool('poet', async (_ctx, tc) => {
      sampled = await tc.sample(request);
      return 'written';
    });
    const { agent, model } = await setup({
      tools: [tool],
      script: [
        { toolCalls: [{ name: 'poet' }], usage: { inputTokens: 1, outputTokens: 1 } },
        { text: 'Otters hold paws tight', usage: { inputTokens: 7, outputTokens: 5 } },
        { text: 'Here is one.', usage: { inputTokens: 1, outputTokens: 1 } },
      ],
    });
    const result = await agent.run('go');
    expect(sampled).toEqual({
      text: 'Otters hold paws tight',
      model: 'scripted:scripted',
      stopReason: 'endTurn',
    });
    expect(model.requests[1]).toMatchObject({
      system: 'You write haiku.',
      messages: [{ role: 'user', content: 'A haiku about otters.' }],
      tools: [],
      maxTokens: 60,
      temperature: 0.2,
    });
    expect(result.usage).toEqual({ inputTokens: 9, outputTokens: 7 });
    model.assertConsumed();
  });
});

describe('outside a run', () => {
  it('tc.elicit and tc.sample reject with ELICITATION_UNAVAILABLE / SAMPLING_UNAVAILABLE; tc.log does nothing', async () => {
    const errors: unknown[] = [];
    const tool = makeTool('ask', async (_ctx, tc) => {
      tc.log('info', 'nobody hears this');
      await tc.elicit(QUESTION).catch((error: unknown) => errors.push(error));
      await tc
        .sample({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 5 })
        .catch((error: unknown) => errors.push(error));
      return 'asked';
    });
    expect(await invokeTool(tool, {})).toEqual({ ok: true, output: 'asked' });
    expect(errors.map((e) => HubosError.is(e) && e.code)).toEqual([
      'ELICITATION_UNAVAILABLE',
      'SAMPLING_UNAVAILABLE',
    ]);
    expect((errors[0] as HubosError).message).toContain('Which account should be charged?');
    expect((errors[0] as HubosError).status).toBe(409);
  });

  it('invokeTool passes env.elicit, env.sample and env.log to the tool, with the call signal', async () => {
    const logged: unknown[] = [];
    const signals: AbortSignal[] = [];
    const controller = new AbortController();
    const tool = makeTool('ask', async (_ctx, tc) => {
      tc.log('debug', 'asking', { n: 1 });
      const answer = await tc.elicit(QUESTION);
      const reply = await tc.sample({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 5 });
      return { answer, reply };
    });
    const result = await invokeTool(
      tool,
      {},
      {
        signal: controller.signal,
        log: (level, message, data) => logged.push([level, message, data]),
        elicit: async (request, signal) => {
          signals.push(signal);
          return { action: 'accept', content: { account: request.message.length } };
        },
        sample: async (request, signal) => {
          signals.push(signal);
          return { text: `echo ${request.messages.length}`, model: 'test:echo' };
        },
      },
    );
    expect(result).toEqual({
      ok: true,
      output: {
        answer: { action: 'accept', content: { account: 32 } },
        reply: { text: 'echo 1', model: 'test:echo' },
      },
    });
    expect(logged).toEqual([['debug', 'asking', { n: 1 }]]);
    expect(signals).toEqual([controller.signal, controller.signal]);
  });

  it("a tool's own signal reaches env.elicit too", async () => {
    const own = new AbortController();
    const gotAborted = deferred<boolean>();
    const tool = makeTool('ask', async (_ctx, tc) => tc.elicit(QUESTION, { signal: own.signal }));
    const result = invokeTool(
      tool,
      {},
      {
        elicit: (_request, signal) =>
          new Promise((resolve) => {
            signal.addEventListener('abort', () => {
              gotAborted.resolve(true);
              resolve({ action: 'cancel', reason: 'withdrawn' });
            });
            own.abort();
          }),
      },
    );
    expect(await gotAborted.promise).toBe(true);
    expect(await result).toEqual({ ok: true, output: { action: 'cancel', reason: 'withdrawn' } });
  });
});
