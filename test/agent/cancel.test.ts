import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent, Kernel, ModelRequest, RunResult } from '../../core/index.ts';
import { bootAgent, deferred, makeTool, untilAborted } from './helpers.ts';

const kernels: Kernel[] = [];
async function setup(...args: Parameters<typeof bootAgent>) {
  const booted = await bootAgent(...args);
  kernels.push(booted.kernel);
  return booted;
}

afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

/** A tool that waits for its signal (for ever otherwise) and tells when it has started. */
function slowTool() {
  const started = deferred();
  let signal: AbortSignal | undefined;
  const tool = makeTool('slow', async (ctx) => {
    signal = ctx.signal;
    started.resolve();
    await untilAborted(ctx.signal);
  });
  return { tool, started: started.promise, signal: () => signal };
}

function expectCancelled(result: RunResult) {
  expect(result.status).toBe('cancelled');
  expect(result.stopReason).toBe('cancelled');
}

describe('cancellation', () => {
  it('ends promptly when the signal aborts during a slow tool, aborting the tool too', async () => {
    const slow = slowTool();
    const { agent, model } = await setup({
      tools: [slow.tool],
      script: [{ toolCalls: [{ name: 'slow' }] }, 'never asked'],
    });
    const controller = new AbortController();
    const running = agent.run('go', { signal: controller.signal });
    await slow.started;
    const t0 = performance.now();
    controller.abort();
    const result = await running;
    expect(performance.now() - t0).toBeLessThan(500);
    expectCancelled(result);
    expect(slow.signal()!.aborted).toBe(true);
    expect(model.requests).toHaveLength(1);
    expect(model.remaining).toBe(1);
  });

  it('ends promptly when the signal aborts while the model is thinking', async () => {
    const { agent, model } = await setup({ script: [{ delayMs: 10_000, text: 'too late' }] });
    const controller = new AbortController();
    const t0 = performance.now();
    setTimeout(() => controller.abort(), 30);
    const result = await agent.run('go', { signal: controller.signal });
    expect(performance.now() - t0).toBeLessThan(500);
    expectCancelled(result);
    expect(result.text).toBe('');
    expect(model.requests[0]!.signal.aborted).toBe(true);
  });

  it('returns cancelled at once for a signal aborted before the start', async () => {
    const { agent, model } = await setup({ script: ['never asked'] });
    const result = await agent.run('go', { signal: AbortSignal.abort() });
    expectCancelled(result);
    expect(result.steps).toBe(0);
    expect(model.requests).toHaveLength(0);
  });

  it('cancels the run when the consumer stops iterating the stream', async () => {
    const slow = slowTool();
    const { agent } = await setup({ tools: [slow.tool], script: [{ toolCalls: [{ name: 'slow' }] }] });
    const seen: AgentEvent['type'][] = [];
    const t0 = performance.now();
    for await (const event of agent.stream('go')) {
      seen.push(event.type);
      if (event.type === 'tool-call-end') {
        await slow.started;
        break;
      }
    }
    // Leaving the loop waits for the run to wind down: the tool's signal is aborted by then.
    expect(performance.now() - t0).toBeLessThan(500);
    expect(slow.signal()!.aborted).toBe(true);
    expect(seen).toEqual(['run-start', 'step-start', 'tool-call-start', 'tool-call-end']);
  });

  it('stream() ends with a cancelled run-finish when its signal aborts', async () => {
    const { agent } = await setup({ script: [{ delayMs: 10_000, text: 'too late' }] });
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    for await (const event of agent.stream('go', { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'step-start') controller.abort();
    }
    const last = events.at(-1)!;
    expect(last.type).toBe('run-finish');
    expectCancelled((last as Extract<AgentEvent, { type: 'run-finish' }>).result);
  });

  it('destroyAgent cancels the running runs of the agent', async () => {
    const slow = slowTool();
    const { kernel, agent } = await setup({
      tools: [slow.tool],
      script: [{ toolCalls: [{ name: 'slow' }] }],
    });
    const running = agent.run('go');
    await slow.started;
    expect(await kernel.destroyAgent('assistant')).toBe(true);
    expectCancelled(await running);
    expect(slow.signal()!.reason).toMatchObject({ code: 'RUN_CANCELLED' });
    expect(kernel.getAgent('assistant')).toBeUndefined();
    expect(await kernel.destroyAgent('assistant')).toBe(false);
  });

  it('kernel.close() cancels running runs', async () => {
    const slow = slowTool();
    const { kernel, agent } = await setup({
      tools: [slow.tool],
      script: [{ toolCalls: [{ name: 'slow' }] }],
    });
    const running = agent.run('go');
    await slow.started;
    await kernel.close();
    expectCancelled(await running);
  });

  it('leaves other runs of the agent alone when one is cancelled', async () => {
    const asked = deferred();
    const answer = (request: ModelRequest) => {
      asked.resolve();
      const first = request.messages[0]!.content === 'one';
      return first ? { delayMs: 10_000, text: 'too late' } : { delayMs: 20, text: 'fine' };
    };
    const { agent } = await setup({ script: [answer, answer] });
    const controller = new AbortController();
    const first = agent.run('one', { signal: controller.signal });
    await asked.promise;
    const second = agent.run('two');
    controller.abort();
    expectCancelled(await first);
    expect(await second).toMatchObject({ status: 'completed', text: 'fine' });
  });
});
