// Budgets on the REST faces, over a real socket and a SQLite store: the JSON answer, SSE, a queued run.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../../core/index.ts';
import { SqliteStore } from '../../../core/store/sqlite.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';
import { tempDir } from '../../helpers/run.ts';
import { parseSSE, post, testTools } from './helpers.ts';

let closing: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closing?.();
  closing = undefined;
});

/** A model that calls `echo` for ever, 100 tokens a call. */
const looping = () =>
  new ScriptedModel(
    Array.from({ length: 10 }, () => ({
      toolCalls: [{ name: 'echo', input: { text: 'again' } }],
      usage: { inputTokens: 80, outputTokens: 20 },
    })),
  );

async function serve(model: ScriptedModel): Promise<string> {
  const kernel: Kernel = await bootKernel({
    plugins: [testTools],
    store: new SqliteStore(join(await tempDir('hubos-budget-'), 'hubos.db')),
    config: { agents: { helper: { model, tools: ['*'], budget: { steps: 8 } } } },
  });
  const hubos = new HubOS({ kernel, name: 'test', port: 0, rateLimit: false });
  hubos.registerAgent('helper', kernel.agent('helper'));
  const url = await hubos.serve();
  closing = async () => {
    await hubos.close();
    await kernel.close();
  };
  return url;
}

describe('budgets on POST /api/agents/:name/run', () => {
  it('JSON: 422 BUDGET_EXCEEDED naming the budget, the failed run beside it, its steps kept', async () => {
    const url = await serve(looping());
    const response = await post(`${url}/api/agents/helper/run`, { input: 'go', budget: { tokens: 250 } });
    const body = (await response.json()) as {
      error: { code: string; message: string };
      result: { runId: string; status: string; stopReason: string; steps: number };
    };
    expect(response.status).toBe(422);
    expect(body.error).toEqual({
      code: 'BUDGET_EXCEEDED',
      message: "the run's tokens budget is spent: 300 tokens used, the limit is 250 tokens (budget.tokens)",
    });
    expect(body.result).toMatchObject({ status: 'failed', stopReason: 'budget', steps: 3 });
    const run = (await (await fetch(`${url}/api/runs/${body.result.runId}`)).json()) as {
      status: string;
      error: { code: string };
    };
    expect(run).toMatchObject({ status: 'failed', error: { code: 'BUDGET_EXCEEDED' } });
  });

  it("SSE: the stream ends with run-error BUDGET_EXCEEDED; a caller cannot raise the agent's budget", async () => {
    const url = await serve(looping());
    const response = await post(
      `${url}/api/agents/helper/run`,
      { input: 'go', budget: { steps: 50 } },
      { accept: 'text/event-stream' },
    );
    const events = parseSSE(await response.text());
    expect(events.filter((event) => event.event === 'step-start')).toHaveLength(8);
    expect(events.at(-1)).toMatchObject({
      event: 'run-error',
      data: { error: { code: 'BUDGET_EXCEEDED', message: expect.stringContaining('(budget.steps)') } },
    });
  });

  it('async: a queued run keeps its budget on its record for the instance that runs it', async () => {
    const url = await serve(looping());
    const queued = await post(`${url}/api/agents/helper/run?async=true`, {
      input: 'go',
      budget: { steps: 2 },
    });
    expect(queued.status).toBe(202);
    const { runId } = (await queued.json()) as { runId: string };
    let run: { status: string; steps: number; error?: { code: string } } = { status: 'queued', steps: 0 };
    for (let i = 0; i < 200 && (run.status === 'queued' || run.status === 'running'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      run = (await (await fetch(`${url}/api/runs/${runId}`)).json()) as typeof run;
    }
    expect(run).toMatchObject({ status: 'failed', steps: 2, error: { code: 'BUDGET_EXCEEDED' } });
  });

  it('400 for a budget that is not one: the field named', async () => {
    const url = await serve(looping());
    // A timeMs past what a timer can wait would fail the run the moment it started.
    for (const budget of [
      { steps: 0 },
      { tokens: 'many' },
      { dollars: 3 },
      { costUsd: -1 },
      { timeMs: 3_000_000_000 },
      { timeMs: 1e300 },
    ]) {
      const response = await post(`${url}/api/agents/helper/run`, { input: 'go', budget });
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(response.status, JSON.stringify(budget)).toBe(400);
      expect(body.error.code).toBe('INVALID_BODY');
      expect(body.error.message).toContain('budget');
    }
  });

  it('400 BUDGET_INVALID for a cost budget on a model without a price', async () => {
    const url = await serve(looping());
    const response = await post(`${url}/api/agents/helper/run`, { input: 'go', budget: { costUsd: 1 } });
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(response.status).toBe(400);
    expect(body.error.code).toBe('BUDGET_INVALID');
  });
});
