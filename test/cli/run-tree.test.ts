// `hubos runs show`'s tree: loop steps, tool calls under their model call, and child tracks (a
// sub-agent task's, a nested one's, a Stars member's) under the call that started them.
import { describe, expect, it } from 'vitest';
import { runTree } from '../../bin/commands/run-tree.ts';
import { priceTable, type RunRecord, type RunStep } from '../../core/index.ts';

const T0 = Date.parse('2026-11-28T10:00:00.000Z');
const RUN = 'run-1';
let seq = 0;

/** A step from `from` to `to` ms after T0. */
function step(
  kind: RunStep['kind'],
  name: string,
  loop: number,
  from: number,
  to: number,
  more: object = {},
): RunStep {
  return {
    runId: RUN,
    seq: ++seq,
    kind,
    name,
    step: loop,
    startedAt: new Date(T0 + from).toISOString(),
    finishedAt: new Date(T0 + to).toISOString(),
    durationMs: to - from,
    status: 'ok',
    ...more,
  };
}
const usage = (inputTokens: number, outputTokens: number) => ({ usage: { inputTokens, outputTokens } });
const explore = {
  runId: 'sub-1',
  kind: 'subagent',
  label: 'task explore: find the config',
  callId: 'c-task',
};
const nested = {
  runId: 'sub-2',
  kind: 'subagent',
  label: 'task grep: look deeper',
  callId: 'c-inner',
  parentRunId: 'sub-1',
};
const member = { runId: 'mem-1', kind: 'member', label: 'ana (reviewer)' };

const run: RunRecord = {
  id: RUN,
  agent: 'helper',
  status: 'completed',
  via: 'rest',
  createdAt: new Date(T0).toISOString(),
  startedAt: new Date(T0).toISOString(),
  finishedAt: new Date(T0 + 3_000).toISOString(),
  input: 'find the config',
};

describe('runTree', () => {
  it('nests tool calls under their model call and child tracks under the task call that started them', () => {
    seq = 0;
    const steps = [
      step('model', 'm:big', 1, 0, 500, { ...usage(100, 10), finishReason: 'tool-calls' }),
      step('tool', 'echo', 1, 500, 510, { callId: 'c-echo' }),
      step('tool', 'task', 1, 510, 2_000, { callId: 'c-task' }),
      step('model', 'm:small', 1, 520, 700, { ...usage(40, 4), finishReason: 'tool-calls', track: explore }),
      step('tool', 'task', 1, 700, 1_500, { callId: 'c-inner', track: explore }),
      step('model', 'm:small', 1, 710, 1_400, { ...usage(20, 2), finishReason: 'stop', track: nested }),
      step('model', 'm:small', 2, 1_500, 1_900, { ...usage(60, 6), finishReason: 'stop', track: explore }),
      step('model', 'm:big', 2, 2_000, 2_400, { ...usage(200, 20), finishReason: 'stop' }),
      step('model', 'm:small', 1, 2_400, 2_900, { ...usage(1, 1), finishReason: 'stop', track: member }),
    ];
    const prices = priceTable({
      'm:big': { input: 1e6, output: 2e6 },
      'm:small': { input: 1e5, output: 1e5 },
    });
    expect(runTree(run, steps, prices)).toBe(
      [
        'run run-1 · helper · completed 3.0 s · 421 in / 43 out tokens · $373.4',
        '│ input: find the config',
        '├─ step 1 · 2.0 s · 220 in / 22 out · $133.2',
        '│  └─ model m:big · 500 ms · 100 in / 10 out · $120 · tool-calls',
        '│     ├─ tool echo · 10 ms',
        '│     └─ tool task · 1.5 s',
        '│        └─ task explore: find the config · 1.4 s · 120 in / 12 out · $13.2',
        '│           ├─ step 1 · 980 ms · 60 in / 6 out · $6.6',
        '│           │  └─ model m:small · 180 ms · 40 in / 4 out · $4.4 · tool-calls',
        '│           │     └─ tool task · 800 ms',
        '│           │        └─ task grep: look deeper · 690 ms · 20 in / 2 out · $2.2',
        '│           │           └─ step 1 · 690 ms · 20 in / 2 out · $2.2',
        '│           │              └─ model m:small · 690 ms · 20 in / 2 out · $2.2 · stop',
        '│           └─ step 2 · 400 ms · 60 in / 6 out · $6.6',
        '│              └─ model m:small · 400 ms · 60 in / 6 out · $6.6 · stop',
        '├─ step 2 · 400 ms · 200 in / 20 out · $240',
        '│  └─ model m:big · 400 ms · 200 in / 20 out · $240 · stop',
        '└─ member ana (reviewer) · 500 ms · 1 in / 1 out · $0.2',
        '   └─ step 1 · 500 ms · 1 in / 1 out · $0.2',
        '      └─ model m:small · 500 ms · 1 in / 1 out · $0.2 · stop',
        '',
      ].join('\n'),
    );
  });

  it('shows workflow steps, failed calls, a run on another model and the run it repeats', () => {
    seq = 0;
    const steps = [
      step('step', 'build', 0, 0, 1_200),
      step('decision', 'ship?', 0, 1_200, 1_210),
      step('model', 'm:x', 1, 1_300, 1_400, { finishReason: 'tool-calls' }),
      step('tool', 'deploy', 1, 1_400, 1_450, {
        status: 'error',
        error: { code: 'TOOL_FAILED', message: 'no' },
      }),
    ];
    const text = runTree(
      { ...run, model: 'm:x', againOf: 'run-0', error: { code: 'RUN_FAILED', message: 'deploy failed' } },
      steps,
    );
    expect(text).toContain('│ model: m:x\n│ again of: run-0\n');
    expect(text).toContain(
      [
        '├─ step build · 1.2 s',
        '├─ decision ship? · 10 ms',
        '└─ step 1 · 150 ms · 0 in / 0 out · no price',
        '   └─ model m:x · 100 ms · tool-calls',
        '      └─ tool deploy ✗ TOOL_FAILED · 50 ms',
      ].join('\n'),
    );
    expect(text).toMatch(/error: RUN_FAILED: deploy failed\n$/);
  });
});
