// The agent loop's side of resuming: it hands each step's messages to `checkpoint` and waits for it
// before its tools run and before the next model call; given `resume`, it goes on from them.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunCheckpoint } from '../../core/agent/agent.ts';
import { splitSession } from '../../core/agent/resume.ts';
import type { Kernel, Message } from '../../core/index.ts';
import { bootAgent, makeTool } from './helpers.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

const user: Message = { role: 'user', content: 'go' };

describe('checkpoints', () => {
  it('are kept before the tools run and before the next model call, and not for a plain answer', async () => {
    const order: string[] = [];
    const tool = makeTool('note', () => {
      order.push('tool ran');
      return 'noted';
    });
    const { kernel, agent } = await bootAgent({
      script: [{ toolCalls: [{ name: 'note', input: {} }] }, 'done'],
      tools: [tool],
    });
    kernels.push(kernel);
    const entries: RunCheckpoint[] = [];
    const result = await agent.run('go', {
      checkpoint: async (entry) => {
        // Slow on purpose: nothing goes on until it is kept.
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push(`kept ${entry.messages.map((message) => message.role).join('+')}`);
        entries.push(entry);
      },
    });
    expect(result.text).toBe('done');
    expect(order).toEqual(['kept user+assistant', 'tool ran', 'kept tool']);
    expect(entries.map((entry) => entry.step)).toEqual([1, 1]);
    // Together they are the run's messages but its last answer (which ends it).
    expect(entries.flatMap((entry) => entry.messages)).toEqual(result.messages.slice(0, -1));
  });

  it('fail the run when they cannot be kept, before any tool runs', async () => {
    let ran = 0;
    const { kernel, agent } = await bootAgent({
      script: [{ toolCalls: [{ name: 'note', input: {} }] }],
      tools: [makeTool('note', () => ++ran)],
    });
    kernels.push(kernel);
    const result = await agent.stream('go', {
      checkpoint: () => Promise.reject(new Error('store away')),
    });
    const events = [];
    for await (const event of result) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: 'run-error', error: { message: 'store away' } });
    expect(ran).toBe(0);
  });
});

describe('a resumed run', () => {
  it('goes on from its kept messages, without repeating a finished call or the user input', async () => {
    let ran = 0;
    const { kernel, agent, model } = await bootAgent({
      script: ['all done'],
      tools: [makeTool('note', () => ++ran)],
    });
    kernels.push(kernel);
    const asked: Message = {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'c1', name: 'note', input: {} }],
    };
    const answered: Message = { role: 'tool', toolCallId: 'c1', name: 'note', content: '1' };
    const events: string[] = [];
    const result = await agent.run('go', {
      runId: 'r-1',
      resume: { messages: [user, asked, answered] },
      onEvent: (event) => events.push(event.type),
    });
    expect(result.text).toBe('all done');
    expect(ran).toBe(0);
    expect(model.requests[0]!.messages).toEqual([user, asked, answered]);
    // It goes on as step 2, and does not announce a second start.
    expect(events[0]).toBe('step-start');
    expect(result.steps).toBe(2);
  });
});

describe('splitSession', () => {
  const a: Message = { role: 'user', content: 'a' };
  const b: Message = { role: 'assistant', content: 'b' };
  it('finds how much of the run the session already holds', () => {
    expect(splitSession([a, b, user], [user, b])).toEqual({ history: [a, b], persisted: 1 });
    expect(splitSession([a, b], [user])).toEqual({ history: [a, b], persisted: 0 });
    expect(splitSession([user, b], [user, b])).toEqual({ history: [], persisted: 2 });
    expect(splitSession([], [user])).toEqual({ history: [], persisted: 0 });
  });
});
