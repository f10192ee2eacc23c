// GET /api/runs/:id/steps/:seq: one step with its full payload, to the run's owner only; the list
// of steps carries previews and sizes, never payloads; runs.recordSteps: false records none.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunStep } from '../../../core/index.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';
import { type Built, buildHelper } from './helpers.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const ALICE = 'a'.repeat(32);
const BOB = 'b'.repeat(32);

async function serve(script: Parameters<typeof buildHelper>[0]): Promise<Built> {
  const served = await buildHelper(script, {
    apiKeys: [
      { key: ALICE, id: 'alice' },
      { key: BOB, id: 'bob' },
    ],
  });
  closers.push(served.close);
  return served;
}

async function call(served: Built, path: string, key = ALICE, init: RequestInit = {}) {
  const response = await served.hubos.app.request(path, {
    ...init,
    headers: { authorization: `Bearer ${key}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function runOnce(served: Built, input: string): Promise<string> {
  const answer = await call(served, '/api/agents/helper/run', ALICE, {
    method: 'POST',
    body: JSON.stringify({ input }),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.runId as string;
}

describe('GET /api/runs/:id/steps/:seq', () => {
  it("answers a tool step's input and output and a model step's answer and what it was sent", async () => {
    const served = await serve([{ toolCalls: [{ name: 'echo', input: { text: 'hi there' } }] }, 'All done.']);
    const id = await runOnce(served, 'say hi');
    const listed = await call(served, `/api/runs/${id}/steps`);
    const steps = listed.body.steps as RunStep[];
    expect(steps.map((s) => [s.seq, s.kind])).toEqual([
      [1, 'model'],
      [2, 'tool'],
      [3, 'model'],
    ]);
    // Lists carry previews and sizes only.
    expect(steps[1]!.preview).toEqual({ input: '{"text":"hi there"}', output: '{"echoed":"hi there"}' });
    expect(steps[2]!.preview).toEqual({ output: 'All done.' });
    for (const step of steps) {
      expect(step.payloadBytes).toBeGreaterThan(0);
      expect(JSON.stringify(step)).not.toContain('"payload"');
    }
    expect(steps[0]!.firstTokenMs).toBeGreaterThanOrEqual(0);

    const tool = await call(served, `/api/runs/${id}/steps/2`);
    expect(tool.status).toBe(200);
    expect(tool.body.step).toEqual(steps[1]);
    expect(tool.body.payload).toEqual({ input: { text: 'hi there' }, output: { echoed: 'hi there' } });

    const first = await call(served, `/api/runs/${id}/steps/1`);
    expect(first.body.payload.answer).toEqual({
      text: '',
      toolCalls: [{ id: expect.any(String), name: 'echo', input: { text: 'hi there' } }],
    });
    expect(first.body.payload.sent).toEqual([{ role: 'user', content: 'say hi' }]);

    const last = await call(served, `/api/runs/${id}/steps/3`);
    expect(last.body.payload.answer).toEqual({ text: 'All done.' });
    expect(last.body.payload.sent.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
    ]);
    expect(last.body.payload.sent[2]).toMatchObject({ role: 'tool', name: 'echo' });
  });

  it("is a 404 for another key's run, a 404 STEP_NOT_FOUND for an unknown seq, a 400 for a bad seq", async () => {
    const served = await serve(['hello']);
    const id = await runOnce(served, 'hi');
    const other = await call(served, `/api/runs/${id}/steps/1`, BOB);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('RUN_NOT_FOUND');
    expect((await call(served, '/api/runs/nope/steps/1')).body.error.code).toBe('RUN_NOT_FOUND');
    const unknown = await call(served, `/api/runs/${id}/steps/9`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('STEP_NOT_FOUND');
    expect(unknown.body.error.message).toContain(`GET /runs/${id}/steps`);
    for (const bad of ['0', '-1', '1.5', 'abc', '99999999999', '%20']) {
      const answer = await call(served, `/api/runs/${id}/steps/${bad}`);
      expect(answer.status, bad).toBe(400);
      expect(answer.body.error.code, bad).toBe('STEP_SEQ_INVALID');
      expect(answer.body.error.message, bad).toContain('whole number from 1');
    }
  });
});

describe('runs.recordSteps', () => {
  it('false records no steps', async () => {
    const kernel = await bootKernel({
      config: {
        runs: { recordSteps: false },
        agents: { helper: { description: 'h', model: new ScriptedModel(['hello']) } },
      },
    });
    const hubos = new HubOS({
      kernel,
      name: 't',
      port: 0,
      rateLimit: false,
      apiKeys: [{ key: ALICE, id: 'alice' }],
    });
    hubos.registerAgent('helper', kernel.agent('helper'));
    await hubos.init();
    const served = { kernel, hubos } as Built;
    closers.push(async () => {
      await hubos.close();
      await kernel.close();
    });
    const id = await runOnce(served, 'hi');
    expect((await call(served, `/api/runs/${id}`)).body.status).toBe('completed');
    expect((await call(served, `/api/runs/${id}/steps`)).body.steps).toEqual([]);
  });
});
