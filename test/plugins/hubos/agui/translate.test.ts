import { describe, expect, it } from 'vitest';
import type { AgentEvent, RunResult } from '../../../../core/index.ts';
import { AguiTranslator } from '../../../../plugins/hubos/agui/translate.ts';

const runId = 'hubos-run';

function result(overrides: Partial<RunResult> = {}): RunResult {
  return {
    runId,
    agent: 'helper',
    status: 'completed',
    stopReason: 'stop',
    text: '',
    messages: [],
    toolCalls: [],
    usage: { inputTokens: 3, outputTokens: 4 },
    steps: 1,
    ...overrides,
  };
}

function translateAll(events: AgentEvent[]) {
  const translator = new AguiTranslator('thread-1', 'run-1');
  return [
    ...translator.start(),
    ...events.flatMap((event) => translator.translate(event)),
    ...translator.end(),
  ];
}

describe('AguiTranslator', () => {
  it('closes what a cancelled run left open, then finishes as cancelled', () => {
    const events = translateAll([
      { type: 'run-start', runId, agent: 'helper', model: 'openai:gpt-4.1-mini' },
      { type: 'step-start', runId, step: 1 },
      { type: 'text-delta', runId, step: 1, delta: 'Half a sent' },
      { type: 'tool-call-start', runId, step: 1, id: 'c1', name: 'search' },
      { type: 'run-finish', runId, result: result({ status: 'cancelled', stopReason: 'cancelled' }) },
    ]);
    // The HubOS run behind it, named right after RUN_STARTED: its record is at /api/runs/<runId>.
    expect(events[1]).toMatchObject({ type: 'CUSTOM', name: 'hubos.run', value: { runId, agent: 'helper' } });
    expect(events.map((event) => event.type)).toEqual([
      'RUN_STARTED',
      'CUSTOM',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_END',
      'STEP_FINISHED',
      'RUN_FINISHED',
    ]);
    expect(events.at(-1)).toMatchObject({
      outcome: { type: 'cancelled' },
      usage: [{ provider: 'openai', model: 'gpt-4.1-mini', inputTokens: 3, outputTokens: 4, totalTokens: 7 }],
      metadata: { hubos: { runId, stopReason: 'cancelled' } },
    });
  });

  it('puts a step text and its tool calls in one assistant message', () => {
    const events = translateAll([
      { type: 'step-start', runId, step: 1 },
      { type: 'text-delta', runId, step: 1, delta: 'Looking.' },
      { type: 'tool-call-start', runId, step: 1, id: 'c1', name: 'search' },
    ]);
    const start = events.find((event) => event.type === 'TEXT_MESSAGE_START') as { messageId: string };
    expect(events.find((event) => event.type === 'TOOL_CALL_START')).toMatchObject({
      parentMessageId: start.messageId,
    });
  });

  it('sends streamed arguments as they come, and whole ones when none were streamed', () => {
    const events = translateAll([
      { type: 'step-start', runId, step: 1 },
      { type: 'tool-call-start', runId, step: 1, id: 'streamed', name: 'a' },
      { type: 'tool-call-args', runId, step: 1, id: 'streamed', delta: '{"q":' },
      { type: 'tool-call-args', runId, step: 1, id: 'streamed', delta: '1}' },
      { type: 'tool-call-end', runId, step: 1, id: 'streamed', name: 'a', input: { q: 1 } },
      // No start either: the end alone opens and closes the call.
      { type: 'tool-call-end', runId, step: 1, id: 'whole', name: 'b', input: { q: 2 } },
    ]);
    const args = events.filter((event) => event.type === 'TOOL_CALL_ARGS');
    expect(args).toMatchObject([
      { toolCallId: 'streamed', delta: '{"q":' },
      { toolCallId: 'streamed', delta: '1}' },
      { toolCallId: 'whole', delta: '{"q":2}' },
    ]);
    expect(events.filter((event) => event.type === 'TOOL_CALL_START')).toHaveLength(2);
  });

  it('gives a failed tool the text the model saw, and lists only unanswered calls as pending', () => {
    const call = { id: 'c1', name: 'a', input: {}, durationMs: 1 };
    const events = translateAll([
      { type: 'step-start', runId, step: 1 },
      { type: 'tool-call-end', runId, step: 1, id: 'c1', name: 'a', input: {} },
      { type: 'tool-call-end', runId, step: 1, id: 'c2', name: 'client_side', input: {} },
      {
        type: 'tool-result',
        runId,
        step: 1,
        call: { ...call, ok: false, error: { code: 'TOOL_FAILED', message: 'disk full' } },
      },
      {
        type: 'step-finish',
        runId,
        step: 1,
        finishReason: 'tool-calls',
        usage: { inputTokens: 1, outputTokens: 1 },
      },
      { type: 'run-finish', runId, result: result({ stopReason: 'tool-calls' }) },
    ]);
    expect(events.find((event) => event.type === 'TOOL_CALL_RESULT')).toMatchObject({
      toolCallId: 'c1',
      content: 'Error: disk full',
    });
    expect(events.at(-1)).toMatchObject({ outcome: { type: 'success', pendingToolCallIds: ['c2'] } });
  });

  it('ends with exactly one terminal event', () => {
    const failed = result({ status: 'failed', stopReason: 'error' });
    const events = translateAll([
      { type: 'run-error', runId, error: { code: 'MODEL_HTTP_ERROR', message: 'boom' }, result: failed },
      { type: 'run-finish', runId, result: failed },
    ]);
    expect(events.map((event) => event.type)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect(events[1]).toMatchObject({ code: 'MODEL_HTTP_ERROR', message: 'boom' });
  });

  it('reports a stream that stopped without an end as an error', () => {
    const events = translateAll([{ type: 'step-start', runId, step: 1 }]);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'RUN_FAILED' });
  });
});
