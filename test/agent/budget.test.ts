// Budgets: steps, tokens, cost and time stop a run with BUDGET_EXCEEDED naming the budget.
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentEvent, HubosError, type Kernel, type LanguageModel, runBudget } from '../../core/index.ts';
import { ScriptedModel } from '../../testing/index.ts';
import { bootAgent, makeTool } from './helpers.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

/** A model that calls `note` for ever, each call using `usage`. */
const forever = (usage = { inputTokens: 100, outputTokens: 20 }) =>
  Array.from({ length: 20 }, () => ({ toolCalls: [{ name: 'note', input: {} }], usage }));

async function setup(...args: Parameters<typeof bootAgent>) {
  const booted = await bootAgent(...args);
  kernels.push(booted.kernel);
  return booted;
}

async function failure(run: Promise<unknown>): Promise<HubosError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!HubosError.is(error)) throw new Error(`expected a HubosError, got ${String(error)}`);
  return error;
}

describe('budgets', () => {
  it('a steps budget stops the run before the call past it: failed, stopReason budget, the budget named', async () => {
    const { agent, model } = await setup({
      script: forever(),
      tools: [makeTool('note')],
      template: { budget: { steps: 3 } },
    });
    const events: AgentEvent[] = [];
    const error = await failure(agent.run('go', { onEvent: (event) => events.push(event) }));
    expect(error.code).toBe('BUDGET_EXCEEDED');
    expect(error.message).toBe(
      "the run's steps budget is spent: 3 model calls used, the limit is 3 model calls (budget.steps)",
    );
    const { result } = error.details as { result: { status: string; stopReason: string; steps: number } };
    expect(result).toMatchObject({ status: 'failed', stopReason: 'budget', steps: 3 });
    expect(model.requests).toHaveLength(3);
    // The last step finished whole: its tools ran, the session (had there been one) is consistent.
    expect(events.filter((event) => event.type === 'tool-result')).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: 'run-error', error: { code: 'BUDGET_EXCEEDED' } });
  });

  it('a tokens budget counts every call, and the run can only tighten its agent’s', async () => {
    const { agent, model } = await setup({
      script: forever(),
      tools: [makeTool('note')],
      template: { budget: { tokens: 1000 } },
    });
    // 120 tokens a call: the run's 300 wins over the agent's 1000; a larger one would not raise it.
    const error = await failure(agent.run('go', { budget: { tokens: 300 } }));
    expect(error.message).toContain('360 tokens used, the limit is 300 tokens (budget.tokens)');
    expect(model.requests).toHaveLength(3);
    expect(runBudget({ tokens: 1000 }, { tokens: 5000, steps: 2 })).toEqual({ tokens: 1000, steps: 2 });
  });

  it('a cost budget prices each call by the config’s pricing; a model without a price is refused before the run', async () => {
    const { agent, model } = await setup({
      script: forever({ inputTokens: 1_000_000, outputTokens: 0 }),
      tools: [makeTool('note')],
      config: { pricing: { scripted: { input: 0.5, output: 1 } } },
    });
    const error = await failure(agent.run('go', { budget: { costUsd: 1.2 } }));
    expect(error.message).toContain('$1.5 used, the limit is $1.2 (budget.costUsd)');
    expect(model.requests).toHaveLength(3);

    const { agent: unpriced } = await setup({ script: ['hi'] });
    const refused = await failure(unpriced.run('go', { budget: { costUsd: 1 } }));
    expect(refused.code).toBe('BUDGET_INVALID');
    expect(refused.message).toContain('needs the price of model "scripted:scripted": add it under "pricing"');
  });

  it('a time budget stops a run waiting in a tool: failed with BUDGET_EXCEEDED, not cancelled', async () => {
    const wait = makeTool(
      'note',
      ({ signal }) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    );
    const { agent } = await setup({
      script: forever(),
      tools: [wait],
      template: { budget: { timeMs: 200 } },
    });
    const started = Date.now();
    const error = await failure(agent.run('go'));
    expect(error.code).toBe('BUDGET_EXCEEDED');
    expect(error.message).toMatch(/the run's timeMs budget is spent: \d+ ms used, the limit is 200 ms/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('refuses a budget that is not a positive number, naming it', async () => {
    const { agent } = await setup({ script: ['hi'] });
    const error = await failure(agent.run('go', { budget: { steps: 0 } }));
    expect(error.code).toBe('BUDGET_INVALID');
    expect(error.message).toBe('agent "assistant": budget.steps must be a positive number, got 0');
    const unknown = await failure(agent.run('go', { budget: { dollars: 1 } as never }));
    expect(unknown.message).toContain('unknown budget "dollars" (known: steps, tokens, costUsd, timeMs)');
  });

  it('refuses a time budget longer than a timer can wait, instead of failing the run at once', async () => {
    const { agent } = await setup({ script: ['hi', 'hi'] });
    const error = await failure(agent.run('go', { budget: { timeMs: 3_000_000_000 } }));
    expect(error.code).toBe('BUDGET_INVALID');
    expect(error.message).toBe(
      'agent "assistant": budget.timeMs is at most 2147483647 (about 24.8 days), got 3000000000: leave it out for no time limit',
    );
    // The longest one allowed runs to its answer.
    expect((await agent.run('go', { budget: { timeMs: 2_147_483_647 } })).text).toBe('hi');
  });

  it("a cost budget prices a fallback's answers as the fallback, and needs the price of every model of the chain", async () => {
    // The cheap model is down: each call fails over to the pricey one, which answers.
    const down: LanguageModel = {
      provider: 'cheap',
      modelId: 'main',
      // biome-ignore lint/correctness/useYield: a model that is down answers nothing
      async *stream() {
        throw new HubosError('MODEL_HTTP_ERROR', 'cheap: overloaded', { details: { status: 503 } });
      },
    };
    const pricey = new ScriptedModel(forever({ inputTokens: 1_000_000, outputTokens: 0 }), {
      modelId: 'pricey',
    });
    const { agent } = await setup({
      tools: [makeTool('note')],
      template: { model: [down, pricey] },
      config: { pricing: { main: { input: 0.01, output: 0.01 }, pricey: { input: 1, output: 1 } } },
    });
    const error = await failure(agent.run('go', { budget: { costUsd: 2.5 } }));
    expect(error.message).toContain('$3 used, the limit is $2.5 (budget.costUsd)');
    expect(pricey.requests).toHaveLength(3);

    const { agent: unpriced } = await setup({
      tools: [makeTool('note')],
      template: { model: [down, pricey] },
      config: { pricing: { main: { input: 0.01, output: 0.01 } } },
    });
    const refused = await failure(unpriced.run('go', { budget: { costUsd: 1 } }));
    expect(refused.code).toBe('BUDGET_INVALID');
    expect(refused.message).toBe(
      'agent "assistant": a costUsd budget needs the price of model "scripted:pricey" (a fallback of its model or its summarizer, priced as itself): add it under "pricing" in agent.config.ts',
    );
  });
});
