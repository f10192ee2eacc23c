import { describe, expect, it } from 'vitest';

// The studio's trace modules: plain ES modules for the browser, their DOM used only when they draw.
const base = new URL('../../../plugins/hubos/ui/static/', import.meta.url).href;
const { stepFacts } = (await import(`${base}trace.js`)) as { stepFacts: (step: unknown) => string[] };
const { LiveSteps } = (await import(`${base}live-trace.js`)) as {
  LiveSteps: new (
    runId: string,
  ) => { apply(type: string, event: unknown): boolean; steps: { name: string; retries?: unknown[] }[] };
};

const retry = (model: string, next: string, status: number, attempt = 1) => ({
  model,
  attempt,
  reason: { code: 'MODEL_HTTP_ERROR', message: `HTTP ${status}`, status },
  delayMs: 500,
  next,
});

describe('the studio trace: a model step’s retries and failovers', () => {
  it('counts the retries and says each failover', () => {
    const step = {
      kind: 'model',
      finishReason: 'stop',
      retries: [
        retry('openai:gpt-main', 'openai:gpt-main', 429),
        retry('openai:gpt-main', 'openai:gpt-main', 503, 2),
        retry('openai:gpt-main', 'anthropic:claude-sonnet-4-5', 503, 3),
      ],
    };
    expect(stepFacts(step)).toEqual([
      'stop',
      '2 retries',
      'failed over from openai:gpt-main to anthropic:claude-sonnet-4-5',
    ]);
  });

  it('a running run’s model step takes each retry as it comes, and the name of the model it failed over to', () => {
    const live = new LiveSteps('r1');
    live.apply('run-start', { runId: 'r1', model: 'openai:gpt-main' });
    live.apply('step-start', { runId: 'r1', step: 1 });
    expect(
      live.apply('model-retry', {
        runId: 'r1',
        step: 1,
        ...retry('openai:gpt-main', 'openai:gpt-backup', 503),
      }),
    ).toBe(true);
    expect(live.steps[0]).toMatchObject({
      name: 'openai:gpt-backup',
      retries: [{ next: 'openai:gpt-backup' }],
    });
  });
});
