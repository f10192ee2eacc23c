// What a run's steps say, from its events: its own loop, a sub-agent's and a Stars member's
// tracks, the model's time to first token, permissions and approvals, previews and payloads.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, RunStep, ToolCallRecord, Usage } from '../../../core/index.ts';
import { MAX_PAYLOAD_BYTES, STEP_PAYLOAD } from '../../../core/runs/step-payload.ts';
import { StepRecorder } from '../../../core/runs/step-recorder.ts';

const usage: Usage = { inputTokens: 10, outputTokens: 5 };
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

/** The events of one model step of `runId` that answers `text` and asks for `calls`, then runs them. */
function step(runId: string, n: number, text: string, calls: ToolCallRecord[] = []): AgentEvent[] {
  return [
    { type: 'step-start', runId, step: n },
    ...(text ? [{ type: 'text-delta' as const, runId, step: n, delta: text }] : []),
    ...calls.map((call) => ({
      type: 'tool-call-end' as const,
      runId,
      step: n,
      id: call.id,
      name: call.name,
      input: call.input,
    })),
    ...calls.map((call) => ({ type: 'tool-result' as const, runId, step: n, call })),
    { type: 'step-finish', runId, step: n, finishReason: calls.length ? 'tool-calls' : 'stop', usage },
  ] as AgentEvent[];
}

const start = (runId: string, model = 'scripted'): AgentEvent => ({
  type: 'run-start',
  runId,
  agent: 'a',
  model,
});

function feed(recorder: StepRecorder, events: AgentEvent[]): RunStep[] {
  return events.flatMap((event) => recorder.see(event));
}

const payload = (step: RunStep) => JSON.parse(step[STEP_PAYLOAD]!);

describe('StepRecorder', () => {
  it("times a model call's first token from its start to its first streamed part", () => {
    const recorder = new StepRecorder('r');
    recorder.see(start('r'));
    recorder.see({ type: 'step-start', runId: 'r', step: 1 });
    vi.advanceTimersByTime(120);
    recorder.see({ type: 'text-delta', runId: 'r', step: 1, delta: 'Hel' });
    vi.advanceTimersByTime(30);
    recorder.see({ type: 'text-delta', runId: 'r', step: 1, delta: 'lo' });
    const [model] = recorder.see({ type: 'step-finish', runId: 'r', step: 1, finishReason: 'stop', usage });
    expect(model).toMatchObject({
      seq: 1,
      kind: 'model',
      name: 'scripted',
      firstTokenMs: 120,
      durationMs: 150,
    });
    expect(model!.preview).toEqual({ output: 'Hello' });
    expect(payload(model!)).toEqual({ answer: { text: 'Hello' } });
    expect(model!.payloadBytes).toBe(Buffer.byteLength(model![STEP_PAYLOAD]!));
    expect(model!.track).toBeUndefined();
  });

  it("counts a streamed tool call as the model call's first token", () => {
    const recorder = new StepRecorder('r');
    recorder.see({ type: 'step-start', runId: 'r', step: 1 });
    vi.advanceTimersByTime(40);
    recorder.see({ type: 'tool-call-start', runId: 'r', step: 1, id: 'c1', name: 'echo' });
    recorder.see({ type: 'tool-call-end', runId: 'r', step: 1, id: 'c1', name: 'echo', input: { a: 1 } });
    const [model] = recorder.see({
      type: 'step-finish',
      runId: 'r',
      step: 1,
      finishReason: 'tool-calls',
      usage,
    });
    expect(model!.firstTokenMs).toBe(40);
    expect(payload(model!)).toEqual({
      answer: { text: '', toolCalls: [{ id: 'c1', name: 'echo', input: { a: 1 } }] },
    });
  });

  it("keeps a tool call's permission verdict, its approval (who, when), previews and payload", () => {
    const recorder = new StepRecorder('r');
    const call: ToolCallRecord = {
      id: 'c1',
      name: 'write_file',
      input: { path: 'a.txt', text: 'x'.repeat(500) },
      ok: true,
      output: 'written',
      durationMs: 5,
      permission: { decision: 'ask', rule: 'fs:*' },
    };
    const events = step('r', 1, '', [call]);
    events.splice(-2, 0, {
      type: 'approval-result',
      runId: 'r',
      step: 1,
      callId: 'c1',
      tool: 'write_file',
      approved: true,
      status: 'approved',
      decidedBy: 'alice',
      decidedAt: '2026-01-01T00:00:01.000Z',
      reason: 'looks fine',
    });
    const [, tool] = feed(recorder, events);
    expect(tool).toMatchObject({
      seq: 2,
      kind: 'tool',
      callId: 'c1',
      permission: { decision: 'ask', rule: 'fs:*' },
      approval: { approved: true, by: 'alice', at: '2026-01-01T00:00:01.000Z', reason: 'looks fine' },
    });
    expect(tool!.preview!.input).toHaveLength(240);
    expect(tool!.preview!.output).toBe('written');
    expect(payload(tool!)).toEqual({ input: call.input, output: 'written' });
  });

  it("records a tool's question under its call, and a denied call's error as its output preview", () => {
    const recorder = new StepRecorder('r');
    const call: ToolCallRecord = {
      id: 'c1',
      name: 'ask_name',
      input: {},
      ok: false,
      error: { code: 'TOOL_FAILED', message: 'declined' },
      durationMs: 1,
    };
    const events = step('r', 1, '', [call]);
    events.splice(-2, 0, {
      type: 'approval-result',
      runId: 'r',
      step: 1,
      callId: 'c1.ask-1',
      tool: 'ask_name',
      approved: false,
      status: 'denied',
      question: true,
    });
    const [, tool] = feed(recorder, events);
    expect(tool).toMatchObject({ status: 'error', approval: { approved: false, question: true } });
    expect(tool!.approval!.at).toBe(new Date(T0).toISOString());
    expect(tool!.preview).toEqual({ input: '{}', output: 'declined' });
    expect(payload(tool!)).toEqual({ input: {}, error: { code: 'TOOL_FAILED', message: 'declined' } });
  });

  it("keeps a sub-agent's steps on its track, numbered after the model call that started it", () => {
    const recorder = new StepRecorder('parent');
    const track = {
      runId: 'child',
      kind: 'subagent' as const,
      label: 'task general: look it up',
      callId: 't1',
    };
    recorder.see(start('parent'));
    recorder.see({ type: 'step-start', runId: 'parent', step: 1 });
    recorder.see({ type: 'tool-call-end', runId: 'parent', step: 1, id: 't1', name: 'task', input: {} });
    // The task runs: the child's events come through the engine, each with its track.
    const child = [
      start('child', 'small'),
      ...step('child', 1, 'found it'),
      { type: 'run-finish', runId: 'child', result: {} } as AgentEvent,
    ];
    const during = child.flatMap((event) => recorder.seeChild(event, track));
    expect(during).toEqual([]);
    const task: ToolCallRecord = {
      id: 't1',
      name: 'task',
      input: {},
      ok: true,
      output: { answer: 'found it' },
      durationMs: 3,
    };
    recorder.see({ type: 'tool-result', runId: 'parent', step: 1, call: task });
    const steps = recorder.see({
      type: 'step-finish',
      runId: 'parent',
      step: 1,
      finishReason: 'tool-calls',
      usage,
    });
    expect(steps.map((s) => [s.seq, s.kind, s.name, s.track?.label])).toEqual([
      [1, 'model', 'scripted', undefined],
      [2, 'model', 'small', 'task general: look it up'],
      [3, 'tool', 'task', undefined],
    ]);
    expect(steps[1]!.runId).toBe('parent');
    expect(steps[1]!.track).toEqual(track);
    expect(payload(steps[1]!)).toEqual({ answer: { text: 'found it' } });
  });

  it("keeps a Stars member's steps on a track named by member and role, as they finish", () => {
    const recorder = new StepRecorder('stars-run');
    const member = (event: AgentEvent) =>
      ({ ...event, member: 'writer', role: 'worker' }) as unknown as AgentEvent;
    const steps = feed(recorder, [start('m1'), ...step('m1', 1, 'drafted')].map(member));
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({
      runId: 'stars-run',
      seq: 1,
      kind: 'model',
      track: { runId: 'm1', kind: 'member', label: 'writer (worker)' },
    });
    // Events of another run with no member (not this run's) are not its steps.
    expect(feed(recorder, step('stranger', 1, 'x'))).toEqual([]);
    // Nor are the team's own events, which name a member but no run.
    const delegation = {
      type: 'stars-delegation',
      member: 'lead',
      role: 'leader',
      worker: 'writer',
      task: 't',
    };
    expect(recorder.see(delegation as unknown as AgentEvent)).toEqual([]);
  });

  it('numbers what children finished when the run ends in the middle of a step', () => {
    const recorder = new StepRecorder('p');
    const track = { runId: 'c', kind: 'subagent' as const, label: 'task t: x' };
    recorder.see({ type: 'step-start', runId: 'p', step: 1 });
    for (const event of step('c', 1, 'partial')) recorder.seeChild(event, track);
    const steps = recorder.see({
      type: 'run-error',
      runId: 'p',
      error: { code: 'RUN_CANCELLED', message: 'x' },
      result: {},
    } as AgentEvent);
    expect(steps.map((s) => [s.seq, s.track?.runId])).toEqual([[1, 'c']]);
  });

  it('cuts a payload over the cap, saying so, and counts its full size', () => {
    const recorder = new StepRecorder('r');
    const huge = 'y'.repeat(MAX_PAYLOAD_BYTES + 10);
    const call: ToolCallRecord = {
      id: 'c1',
      name: 'cat',
      input: { path: 'big' },
      ok: true,
      output: huge,
      durationMs: 1,
    };
    const [, tool] = feed(recorder, step('r', 1, '', [call]));
    const kept = payload(tool!);
    expect(kept.truncated).toBe(true);
    expect(Buffer.byteLength(tool![STEP_PAYLOAD]!)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(kept.output.startsWith('yyy')).toBe(true);
    expect(kept.input).toBe('{"path":"big"}');
    expect(tool!.payloadBytes).toBeGreaterThan(MAX_PAYLOAD_BYTES);
    expect(tool!.preview!.output).toBe('y'.repeat(240));
  });
});
