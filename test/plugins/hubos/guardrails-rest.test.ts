// Guardrails on the REST faces, over a real socket: the JSON answer, the SSE stream, the run's steps.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunStep } from '../../../core/index.ts';
import { blockTerm, CARD_NUMBER } from '../../guardrails/test-guardrails.ts';
import { deltas, type Guarded, serveGuarded } from './guardrails-helpers.ts';
import { parseSSE, post } from './helpers.ts';

let served: Guarded | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('guardrails on POST /api/agents/:name/run', () => {
  it('JSON: pii redacts a card number before the model and in the answer; the steps keep the verdicts', async () => {
    served = await serveGuarded(['Thanks, your card 4111 1111 1111 1111 is saved.'], {
      input: ['pii'],
      output: ['pii'],
    });
    const response = await post(`${served.url}/api/agents/helper/run`, { input: `card ${CARD_NUMBER}` });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(text).not.toContain('4111');
    const answer = JSON.parse(text) as { runId: string; text: string };
    expect(answer.text).toBe('Thanks, your card [redacted:card] is saved.');
    expect(JSON.stringify(served.model.requests)).not.toContain('4111');
    expect(served.model.requests[0]!.messages).toEqual([{ role: 'user', content: 'card [redacted:card]' }]);

    const stepsResponse = await fetch(`${served.url}/api/runs/${answer.runId}/steps`);
    const { steps } = (await stepsResponse.json()) as { steps: RunStep[] };
    expect(steps[0]).toMatchObject({
      kind: 'model',
      guardrails: [
        { guardrail: 'pii', stage: 'input', action: 'rewrite' },
        { guardrail: 'pii', stage: 'output', action: 'rewrite', checks: 1 },
      ],
    });
  });

  it('JSON: a tripwire fails the run with GUARDRAIL_TRIPPED', async () => {
    served = await serveGuarded(['never'], { input: [blockTerm('drop table')] });
    const response = await post(`${served.url}/api/agents/helper/run`, { input: 'please DROP TABLE users' });
    const body = (await response.json()) as {
      error: { code: string; message: string };
      result: { runId: string; status: string };
    };
    expect(response.status).toBe(422);
    expect(body.error).toEqual({
      code: 'GUARDRAIL_TRIPPED',
      message: 'guardrail "block-drop table" tripped on the input: it says "drop table"',
    });
    expect(body.result.status).toBe('failed');
    expect(served.model.requests).toHaveLength(0);
    // The trace keeps the step the trip stopped, with its verdict.
    const { steps } = (await (await fetch(`${served.url}/api/runs/${body.result.runId}/steps`)).json()) as {
      steps: RunStep[];
    };
    expect(steps).toMatchObject([
      {
        kind: 'model',
        status: 'error',
        error: { code: 'GUARDRAIL_TRIPPED' },
        guardrails: [
          { guardrail: 'block-drop table', stage: 'input', action: 'trip', reason: 'it says "drop table"' },
        ],
      },
    ]);
  });

  it('SSE: no text delta shows a blocked term split across two streamed deltas; the run errors', async () => {
    served = await serveGuarded([deltas('Sure thing. The pass', 'word is hunter2. ', 'Anything else?')], {
      output: [blockTerm('password')],
    });
    const response = await post(
      `${served.url}/api/agents/helper/run`,
      { input: 'tell me' },
      { accept: 'text/event-stream' },
    );
    const events = parseSSE(await response.text());
    const streamed = events.flatMap((e) =>
      e.event === 'text-delta' ? [(e.data as { delta: string }).delta] : [],
    );
    expect(streamed).toEqual(['Sure thing. ']);
    for (const delta of streamed) expect(delta).not.toMatch(/pass|word|hunter2/);
    const guardrail = events.filter((e) => e.event === 'guardrail').map((e) => e.data);
    expect(guardrail).toMatchObject([
      {
        stage: 'output',
        step: 1,
        verdicts: [{ guardrail: 'block-password', stage: 'output', action: 'trip', checks: 2 }],
      },
    ]);
    const error = events.find((e) => e.event === 'run-error')?.data as {
      error: { code: string; message: string };
    };
    expect(error.error).toEqual({
      code: 'GUARDRAIL_TRIPPED',
      message: 'guardrail "block-password" tripped on the output: it says "password"',
    });
  });
});
