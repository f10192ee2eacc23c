import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent, Kernel, ToolContext } from '../../core/index.ts';
import { invokeTool } from '../../testing/index.ts';
import { bootAgent, makeTool } from './helpers.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

describe('tool context: progress and usage', () => {
  it('tc.progress emits tool-progress events of the call while it runs; later ones are dropped', async () => {
    let late: ToolContext['progress'] | undefined;
    const tool = makeTool('work', (_ctx, tc) => {
      tc.progress?.({ done: 1 });
      tc.progress?.('half');
      late = tc.progress;
      return { runId: tc.runId, callId: tc.callId };
    });
    const booted = await bootAgent({
      tools: [tool],
      script: [{ toolCalls: [{ name: 'work', id: 'c1' }] }, 'ok'],
    });
    kernels.push(booted.kernel);
    const events: AgentEvent[] = [];
    for await (const event of booted.agent.stream('go')) {
      events.push(event);
      if (event.type === 'tool-result') late?.('too late');
    }
    const runId = events[0]!.runId;
    const progress = events.filter((e) => e.type === 'tool-progress');
    expect(progress).toEqual([
      { type: 'tool-progress', runId, step: 1, callId: 'c1', tool: 'work', data: { done: 1 } },
      { type: 'tool-progress', runId, step: 1, callId: 'c1', tool: 'work', data: 'half' },
    ]);
    const types = events.map((e) => e.type);
    expect(types.indexOf('tool-progress')).toBeGreaterThan(types.indexOf('tool-call-end'));
    expect(types.lastIndexOf('tool-progress')).toBeLessThan(types.indexOf('tool-result'));
    const result = events.find((e) => e.type === 'tool-result');
    expect(result?.type === 'tool-result' && result.call.output).toEqual({ runId, callId: 'c1' });
  });

  it("tc.addUsage adds a tool's tokens to the run's usage", async () => {
    const tool = makeTool('spend', (_ctx, tc) => {
      tc.addUsage?.({ inputTokens: 100, outputTokens: 40 });
      tc.addUsage?.({ outputTokens: 2 });
      return 'spent';
    });
    const booted = await bootAgent({
      tools: [tool],
      script: [
        { toolCalls: [{ name: 'spend' }], usage: { inputTokens: 1, outputTokens: 1 } },
        { text: 'ok', usage: { inputTokens: 1, outputTokens: 1 } },
      ],
    });
    kernels.push(booted.kernel);
    const result = await booted.agent.run('go');
    expect(result.usage).toEqual({ inputTokens: 102, outputTokens: 44 });
  });

  it('outside a run there is no run or call id, and tc.progress and tc.addUsage do nothing', async () => {
    const tool = makeTool('solo', (_ctx, tc) => {
      tc.progress('working');
      tc.addUsage({ inputTokens: 1 });
      return Object.keys(tc).sort();
    });
    expect(await invokeTool(tool, {})).toEqual({
      ok: true,
      output: [
        'addUsage',
        'agentId',
        'elicit',
        'input',
        'log',
        'metadata',
        'progress',
        'sample',
        'sandbox',
        'store',
      ],
    });
  });
});
