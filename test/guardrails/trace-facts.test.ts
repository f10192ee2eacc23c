import { describe, expect, it } from 'vitest';

// The studio's trace module: a plain ES module for the browser, its DOM used only when it draws.
const trace = new URL('../../plugins/hubos/ui/static/trace.js', import.meta.url).href;
const { stepFacts } = (await import(trace)) as { stepFacts: (step: unknown) => string[] };
const live = new URL('../../plugins/hubos/ui/static/live-trace.js', import.meta.url).href;
const { LiveSteps } = (await import(live)) as {
  LiveSteps: new (
    runId: string,
  ) => { steps: { kind: string; seq: number }[]; apply(type: string, event: unknown, at?: number): boolean };
};

describe('the studio trace: a step’s guardrail verdicts', () => {
  it('says each redaction or trip in words and counts the passes', () => {
    const step = {
      kind: 'model',
      finishReason: 'stop',
      guardrails: [
        { guardrail: 'pii', stage: 'input', action: 'rewrite', reason: 'a card number' },
        { guardrail: 'max-length', stage: 'input', action: 'pass' },
        { guardrail: 'blocked-terms', stage: 'output', action: 'trip', reason: 'it says "x"' },
        { guardrail: 'pii', stage: 'output', action: 'pass', checks: 2 },
      ],
    };
    expect(stepFacts(step)).toEqual([
      'stop',
      'pii rewrote the input: a card number',
      'blocked-terms tripped on the output: it says "x"',
      '2 guardrail checks passed',
    ]);
  });
});

describe('the studio trace: a compaction step', () => {
  it('says how much the request shrank and how many messages the summary stands for', () => {
    const step = {
      kind: 'compaction',
      name: 'openai:gpt-4.1-nano',
      detail: { tokensBefore: 180_000, tokensAfter: 12_000, through: 240 },
    };
    const facts = stepFacts(step);
    expect(facts).toHaveLength(2);
    expect(facts[0]).toMatch(/^180(\.0)?k → 12(\.0)?k$/);
    expect(facts[1]).toBe('240 messages summarized');
  });
});

describe('the studio live trace: a compaction as it happens', () => {
  it('draws the summary before the model call it made room for', () => {
    const steps = new LiveSteps('r1');
    steps.apply('run-start', { model: 'fake:notes' }, 1_000);
    steps.apply('step-start', { step: 1 }, 1_000);
    const changed = steps.apply(
      'compaction',
      { step: 1, model: 'fake:notes', tokensBefore: 1900, tokensAfter: 400, through: 12 },
      1_200,
    );
    expect(changed).toBe(true);
    expect(steps.steps.map((step) => [step.kind, step.seq])).toEqual([
      ['compaction', 1],
      ['model', 2],
    ]);
  });
});
