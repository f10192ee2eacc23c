import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../core/index.ts';
import { ScriptedModel, type ScriptedResponse } from '../../../testing/index.ts';
import { deferred, sleep, untilAborted } from '../../agent/helpers.ts';
import { bootLead, byTask, task, taskCalls, taskOf } from './helpers.ts';

/** A `worker` type with its own model, so the lead's script stays in order whatever the workers do. */
function workers(...steps: Parameters<ScriptedModel['push']>) {
  const model = new ScriptedModel(steps);
  return { model, config: { subagents: { worker: { description: 'Does one job.', model } } } };
}

/** Counts the sub-agents whose model call is in flight, and the most seen at once. */
function gauge() {
  let running = 0;
  let max = 0;
  return {
    enter() {
      running++;
      max = Math.max(max, running);
    },
    leave() {
      running--;
    },
    get max() {
      return max;
    },
    get running() {
      return running;
    },
  };
}

describe('the task tool: parallel tasks', () => {
  it('runs the task calls of one turn concurrently (most sub-agents running at once = 3)', async () => {
    const g = gauge();
    const allIn = deferred();
    // Each sub-agent waits until all three are running (or 2 s, so a sequential run fails, not hangs).
    const answer = async (request: ModelRequest): Promise<ScriptedResponse> => {
      g.enter();
      if (g.running === 3) allIn.resolve();
      await Promise.race([allIn.promise, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      g.leave();
      return `done: ${taskOf(request)}`;
    };
    const w = workers(answer, answer, answer);
    const { agent } = await bootLead({
      config: w.config,
      script: [{ toolCalls: [task('A', 'worker'), task('B', 'worker'), task('C', 'worker')] }, 'all done'],
    });
    const result = await agent.run('go');
    expect(g.max).toBe(3);
    expect(taskCalls(result.toolCalls).map((c) => (c.output as { answer: string }).answer)).toEqual([
      'done: A',
      'done: B',
      'done: C',
    ]);
  });

  it('one of three tasks failing is an error for that call only; its siblings succeed', async () => {
    const step = byTask({
      A: { text: 'answer A', usage: { inputTokens: 7, outputTokens: 7 } },
      B: { error: 'the model is down', usage: { inputTokens: 1000, outputTokens: 1000 } },
      C: { text: 'answer C', usage: { inputTokens: 7, outputTokens: 7 } },
    });
    const w = workers(step, step, step);
    const { agent, model } = await bootLead({
      config: w.config,
      script: [
        {
          toolCalls: [task('A', 'worker'), task('B', 'worker'), task('C', 'worker')],
          usage: { inputTokens: 1, outputTokens: 1 },
        },
        { text: 'two of three', usage: { inputTokens: 1, outputTokens: 1 } },
      ],
    });
    const result = await agent.run('go');
    expect(result.status).toBe('completed');
    const [a, b, c] = taskCalls(result.toolCalls);
    expect(a).toMatchObject({ ok: true, output: { status: 'completed', answer: 'answer A' } });
    expect(c).toMatchObject({ ok: true, output: { status: 'completed', answer: 'answer C' } });
    expect(b).toMatchObject({ ok: false, error: { code: 'TOOL_FAILED' } });
    expect(b!.error!.message).toMatch(
      /sub-agent "worker" failed after 1 step: the model is down \[MODEL_HTTP_ERROR\]/,
    );
    // The model reads the failure as an error, not as an empty answer.
    const back = model.requests[1]!.messages.filter((m) => m.role === 'tool');
    expect(back.map((m) => m.role === 'tool' && m.isError === true)).toEqual([false, true, false]);
    // A failed model call reports no usage: the siblings' still counts.
    expect(result.usage).toEqual({ inputTokens: 16, outputTokens: 16 });
  });

  it('one task timing out is an error for that call only', async () => {
    const step = byTask({
      slow: { delayMs: 10_000, text: 'too late' },
      fast1: 'fast one',
      fast2: 'fast two',
    });
    const w = workers(step, step, step);
    const { agent } = await bootLead({
      config: w.config,
      options: { timeoutMs: 300 },
      script: [
        { toolCalls: [task('fast1', 'worker'), task('slow', 'worker'), task('fast2', 'worker')] },
        'ok',
      ],
    });
    const t0 = performance.now();
    const result = await agent.run('go');
    expect(performance.now() - t0).toBeLessThan(5_000);
    const [a, b, c] = taskCalls(result.toolCalls);
    expect(a).toMatchObject({ ok: true, output: { answer: 'fast one' } });
    expect(c).toMatchObject({ ok: true, output: { answer: 'fast two' } });
    expect(b).toMatchObject({ ok: false });
    expect(b!.error!.message).toMatch(/sub-agent "worker" timed out after 300 ms/);
    expect(w.model.requests.find((r) => taskOf(r) === 'slow')!.signal.aborted).toBe(true);
  });

  it('cancelling the parent run aborts every running sub-agent, and they are destroyed', async () => {
    const started = gauge();
    const allIn = deferred();
    const signals: AbortSignal[] = [];
    const hang = async (request: ModelRequest): Promise<ScriptedResponse> => {
      signals.push(request.signal);
      started.enter();
      if (started.running === 3) allIn.resolve();
      await untilAborted(request.signal);
      return 'never';
    };
    const w = workers(hang, hang, hang);
    const { agent, kernel } = await bootLead({
      config: w.config,
      script: [{ toolCalls: [task('A', 'worker'), task('B', 'worker'), task('C', 'worker')] }, 'never asked'],
    });
    const controller = new AbortController();
    const running = agent.run('go', { signal: controller.signal });
    await Promise.race([
      allIn.promise,
      sleep(2_000).then(() => Promise.reject(new Error(`only ${started.running} sub-agents started`))),
    ]);
    expect(kernel.listAgents()).toHaveLength(4);
    const t0 = performance.now();
    controller.abort();
    const result = await running;
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(result.status).toBe('cancelled');
    expect(signals).toHaveLength(3);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    expect(kernel.listAgents().map((a) => a.id)).toEqual(['lead']);
  });
});
