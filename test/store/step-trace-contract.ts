import { describe, expect, it } from 'vitest';
import type { RunStep, RunTable } from '../../core/index.ts';
import { STEP_PAYLOAD } from '../../core/runs/step-payload.ts';
import { runAt } from './run-table-contract.ts';

/** A model step and a sub-agent's tool step, each with a payload, as the recorder makes them. */
export function tracedSteps(runId: string): RunStep[] {
  const at = new Date().toISOString();
  const base = { runId, step: 1, startedAt: at, finishedAt: at, durationMs: 0, status: 'ok' as const };
  return [
    {
      ...base,
      seq: 1,
      kind: 'model',
      name: 'scripted',
      firstTokenMs: 12,
      guardrails: [
        { guardrail: 'pii', stage: 'input', action: 'rewrite', reason: 'a card number' },
        { guardrail: 'blocked-terms', stage: 'output', action: 'pass', checks: 3 },
      ],
      retries: [
        {
          model: 'openai:gpt-main',
          attempt: 1,
          reason: { code: 'MODEL_HTTP_ERROR', message: 'openai request failed with HTTP 503', status: 503 },
          delayMs: 0,
          next: 'anthropic:claude-sonnet-4-5',
          at,
        },
      ],
      preview: { output: 'hello' },
      payloadBytes: 30,
      [STEP_PAYLOAD]: JSON.stringify({ answer: { text: 'hello' } }),
    },
    {
      ...base,
      seq: 2,
      kind: 'tool',
      name: 'write_file',
      callId: 'c1',
      track: {
        runId: 'child',
        kind: 'subagent',
        label: 'task general: write',
        callId: 't1',
        parentRunId: 'mid',
      },
      permission: { decision: 'ask', rule: 'fs:*' },
      approval: { approved: true, by: 'alice', at, reason: 'fine' },
      guardrails: [{ guardrail: 'pii', stage: 'tool-input', action: 'pass', callId: 'c1' }],
      preview: { input: '{"path":"a.txt"}', output: 'ok' },
      payloadBytes: 44,
      [STEP_PAYLOAD]: JSON.stringify({ input: { path: 'a.txt' }, output: 'ok' }),
    },
  ];
}

/** The trace columns of a run's steps, whichever database holds them: listed without payloads, read with one. */
export function stepTraceContract(name: string, open: () => Promise<RunTable>): void {
  describe(`${name} runs table: step traces`, () => {
    it("keeps a step's track, first token, permission, approval, guardrail verdicts, retries, preview and payload; lists leave the payload out", async () => {
      const table = await open();
      const run = runAt(Date.now(), { status: 'running', instance: 'i-a' });
      await table.insert(run);
      const [model, tool] = tracedSteps(run.id);
      await table.addSteps([model!], 'i-a');
      const done = { ...run, status: 'completed' as const, finishedAt: new Date().toISOString() };
      expect(await table.finish(done, { status: 'running', instance: 'i-a' }, [tool!])).toBe(true);
      const listed = await table.steps(run.id);
      const { [STEP_PAYLOAD]: _m, ...modelRow } = model!;
      const { [STEP_PAYLOAD]: _t, ...toolRow } = tool!;
      expect(listed).toEqual([modelRow, toolRow]);
      for (const step of listed) expect(Object.getOwnPropertySymbols(step)).toEqual([]);
      const read = await table.step(run.id, 2);
      expect(read?.step).toEqual(listed[1]);
      expect(JSON.parse(read!.payload!)).toEqual({ input: { path: 'a.txt' }, output: 'ok' });
      expect(await table.step(run.id, 3)).toBeUndefined();
      expect(await table.step('no-run', 1)).toBeUndefined();
    });

    it("previews a workflow step's output and a condition's answer from their records", async () => {
      const table = await open();
      const run = runAt(Date.now(), { status: 'completed' });
      await table.insert(run);
      const at = new Date().toISOString();
      const base = {
        runId: run.id,
        step: 0,
        startedAt: at,
        finishedAt: at,
        durationMs: 0,
        status: 'ok' as const,
      };
      await table.addSteps([
        { ...base, seq: 1, kind: 'step', name: 'fetch', detail: { key: 'fetch', output: { rows: 3 } } },
        { ...base, seq: 2, kind: 'decision', name: 'big', detail: true },
      ]);
      const steps = await table.steps(run.id);
      expect(steps.map((s) => s.preview)).toEqual([{ output: '{"rows":3}' }, { output: 'true' }]);
      expect((await table.step(run.id, 1))?.payload).toBeNull();
    });

    it('keeps the payload of a step a run keeps itself (numbered after the last)', async () => {
      const table = await open();
      const run = runAt(Date.now(), { status: 'running', instance: 'i-a' });
      await table.insert(run);
      const [, tool] = tracedSteps(run.id);
      expect(await table.keepStep(tool!, 'i-a')).toBe(true);
      const read = await table.step(run.id, 1);
      expect(read?.step).toMatchObject({ seq: 1, track: tool!.track, approval: tool!.approval });
      expect(JSON.parse(read!.payload!)).toEqual({ input: { path: 'a.txt' }, output: 'ok' });
    });
  });
}
