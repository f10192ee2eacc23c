import { afterEach, describe, expect, it } from 'vitest';
import { defineScorer, ExperimentStore, evaluate, type Kernel, type Plugin } from '../../core/index.ts';
import { geographyKernel, geographyModel, lastMessage, perCallModel } from './helpers.ts';

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.close();
  kernel = undefined;
});

const CASES = [
  {
    id: 'fr',
    input: 'What is the capital of France?',
    expected: { contains: 'Paris', tools: { calls: [{ name: 'capital', input: { country: 'France' } }] } },
  },
  {
    id: 'it',
    input: 'What is the capital of Italy?',
    expected: { contains: 'Rome', tools: { calls: ['capital'], match: 'exact' as const } },
  },
  { id: 'es', input: 'What is the capital of Spain?', expected: { contains: 'Madrid', maxSteps: 3 } },
];

describe('evaluate()', () => {
  it('runs each case as a recorded run, scores it and stores the experiment', async () => {
    kernel = await geographyKernel();
    const seen: string[] = [];
    const result = await evaluate({
      kernel,
      agent: 'geo',
      dataset: { name: 'capitals', cases: CASES },
      concurrency: 2,
      thresholds: { contains: 1 },
      onCase: (item, done, total) => seen.push(`${item.id} ${done}/${total}`),
    });
    expect(result.cases.map((item) => item.id)).toEqual(['fr', 'it', 'es']);
    expect(seen).toHaveLength(3);
    expect(seen.map((line) => line.split(' ')[1])).toEqual(['1/3', '2/3', '3/3']);
    const [fr, it, es] = result.cases;
    expect(fr?.output).toBe('The capital of France is Paris.');
    expect(fr?.scores).toEqual({
      contains: { score: 1, reason: 'contains "Paris"' },
      trajectory: { score: 1, reason: 'called capital({"country":"France"}) in order' },
    });
    expect(it?.scores.trajectory?.score).toBe(1);
    expect(es?.scores.steps).toEqual({ score: 1, reason: '2 steps within 3' });
    expect(result.summary).toMatchObject({
      cases: 3,
      failed: 0,
      passed: true,
      scorers: {
        contains: { mean: 1, cases: 3, threshold: 1, passed: true },
        trajectory: { mean: 1, cases: 2 },
        steps: { mean: 1, cases: 1 },
      },
      usage: { inputTokens: 90, outputTokens: 39, totalTokens: 129 },
    });
    // Each case is a run of the engine, via 'eval', with its steps recorded (its trace).
    const run = await kernel.runs.get(fr?.runId as string);
    expect(run).toMatchObject({ agent: 'geo', via: 'eval', status: 'completed', owner: 'local' });
    const steps = await kernel.runs.steps(fr?.runId as string);
    expect(steps?.map((step) => `${step.kind}:${step.name}`)).toEqual([
      'model:scripted:scripted',
      'tool:capital',
      'model:scripted:scripted',
    ]);
    // The experiment and its cases are in the store, completed.
    const store = new ExperimentStore(kernel.store);
    const stored = await store.get(result.experiment.id);
    expect(stored).toMatchObject({
      status: 'completed',
      agent: 'geo',
      model: 'scripted:scripted',
      owner: 'local',
    });
    expect(stored?.dataset).toMatchObject({ name: 'capitals', cases: 3 });
    expect(stored?.dataset.version).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect((await store.cases(result.experiment.id)).map((item) => item.id)).toEqual(['fr', 'it', 'es']);
  });

  it('scores a failed run as an empty answer, counts it failed, and prices runs with the config', async () => {
    kernel = await geographyKernel(
      perCallModel((request) =>
        lastMessage(request)?.content.includes('Italy')
          ? { error: 'the provider is down' }
          : 'The capital is Paris.',
      ),
      { pricing: { scripted: { input: 1_000_000, output: 2_000_000 } } },
    );
    const result = await evaluate({
      kernel,
      agent: 'geo',
      dataset: { cases: CASES.map((item) => ({ ...item, expected: { contains: 'Paris', maxCost: 15 } })) },
      thresholds: { contains: 0.5 },
    });
    const [fr, it] = result.cases;
    expect(fr).toMatchObject({
      status: 'completed',
      cost: 20,
      scores: { cost: { score: 0, reason: '20 USD over the budget of 15' } },
    });
    expect(it).toMatchObject({
      status: 'failed',
      output: '',
      error: { code: 'MODEL_HTTP_ERROR', message: expect.stringContaining('the provider is down') },
      scores: { contains: { score: 0, reason: 'missing "Paris"' } },
    });
    expect(result.summary).toMatchObject({
      failed: 1,
      passed: true,
      scorers: { contains: { mean: 0.6667 } },
    });
  });

  it('compares with a baseline and flags the case that got worse; a threshold below the mean fails', async () => {
    const model = { wrong: [] as string[] };
    kernel = await geographyKernel(
      geographyModel({
        get wrong() {
          return model.wrong;
        },
      } as { wrong: string[] }),
    );
    const before = await evaluate({ kernel, agent: 'geo', dataset: { name: 'capitals', cases: CASES } });
    model.wrong = ['Spain'];
    const after = await evaluate({
      kernel,
      agent: 'geo',
      dataset: { name: 'capitals', cases: CASES },
      baseline: 'latest',
      thresholds: { contains: 0.9 },
    });
    expect(after.experiment.baseline).toBe(before.experiment.id);
    expect(after.cases[2]?.worse).toEqual({ contains: { before: 1, now: 0 } });
    expect(after.cases[0]?.worse).toBeUndefined();
    expect(after.summary).toMatchObject({
      passed: false,
      worse: 1,
      scorers: { contains: { mean: 0.6667, baseline: 1, threshold: 0.9, passed: false } },
    });
    const byId = await evaluate({
      kernel,
      agent: 'geo',
      dataset: { name: 'capitals', cases: CASES },
      baseline: before.experiment.id,
    });
    expect(byId.summary.worse).toBe(1);
  });

  it('seeds a conversation into a fresh session, and takes scorers of its own', async () => {
    kernel = await geographyKernel();
    const remembers = defineScorer({
      name: 'remembers',
      score: ({ output }) => ({ score: output.includes('blue') ? 1 : 0, reason: output }),
    });
    const result = await evaluate({
      kernel,
      agent: 'geo',
      dataset: [
        {
          input: [
            { role: 'user', content: 'My favourite colour is blue.' },
            { role: 'assistant', content: 'Noted.' },
            { role: 'user', content: 'What did I say?' },
          ],
        },
      ],
      scorers: [remembers],
    });
    const run = await kernel.runs.get(result.cases[0]?.runId as string);
    expect(run?.sessionId).toMatch(/^eval-/);
    const history = await kernel.sessions.load('geo', run?.sessionId as string);
    expect(history.map((message) => message.content)).toEqual([
      'My favourite colour is blue.',
      'Noted.',
      'What did I say?',
      'You said: What did I say?',
    ]);
    expect(result.cases[0]?.id).toBe('1');
    expect(result.summary.scorers.remembers?.cases).toBe(1);
  });

  it('takes a scorer a plugin registered by name in kernel.scorers, as a dataset names it', async () => {
    kernel = await geographyKernel(geographyModel(), {
      plugins: [
        {
          name: 'brevity',
          apply(view) {
            view.scorers.register('brevity', (options) =>
              defineScorer({
                name: 'brevity',
                score: ({ output }) => ({
                  score: output.length <= (options.max as number) ? 1 : 0,
                  reason: `${output.length} characters`,
                }),
              }),
            );
          },
        } satisfies Plugin,
      ],
    });
    const result = await evaluate({
      kernel,
      agent: 'geo',
      dataset: {
        cases: CASES.slice(0, 1),
        scorers: [{ use: 'brevity', max: 10 }],
        thresholds: { brevity: 1 },
      },
    });
    expect(result.cases[0]?.scores).toEqual({ brevity: { score: 0, reason: '31 characters' } });
    expect(result.summary.passed).toBe(false);
  });

  it('rejects what it cannot run: unknown scorer, threshold of no scorer, missing baseline, bad concurrency', async () => {
    kernel = await geographyKernel();
    const dataset = { cases: CASES };
    await expect(evaluate({ kernel, agent: 'geo', dataset, scorers: ['contans'] })).rejects.toMatchObject({
      code: 'SCORER_INVALID',
      message: expect.stringContaining('no scorer named "contans" (did you mean "contains"?)'),
    });
    await expect(
      evaluate({ kernel, agent: 'geo', dataset, thresholds: { exact: 0.5 } }),
    ).rejects.toMatchObject({
      code: 'SCORER_INVALID',
      message: expect.stringContaining('threshold is set for scorer "exact", which does not run'),
    });
    await expect(evaluate({ kernel, agent: 'geo', dataset, baseline: 'nope' })).rejects.toMatchObject({
      code: 'EXPERIMENT_NOT_FOUND',
    });
    await expect(evaluate({ kernel, agent: 'geo', dataset, concurrency: 0 })).rejects.toMatchObject({
      code: 'DATASET_INVALID',
    });
    await expect(evaluate({ kernel, agent: 'nobody', dataset })).rejects.toMatchObject({
      code: 'AGENT_NOT_FOUND',
    });
    await expect(evaluate({ kernel, agent: 'geo', dataset: [{ input: 'hi' }] })).rejects.toMatchObject({
      code: 'SCORER_INVALID',
      message: expect.stringContaining('nothing to score'),
    });
  });

  it('stops on its signal: the experiment is stored as failed', async () => {
    kernel = await geographyKernel(geographyModel({ delayMs: 200 }));
    const controller = new AbortController();
    const running = evaluate({
      kernel,
      agent: 'geo',
      dataset: { cases: CASES },
      concurrency: 1,
      signal: controller.signal,
      onCase: () => controller.abort(new Error('enough')),
    });
    await expect(running).rejects.toThrow('enough');
    const { experiments } = await new ExperimentStore(kernel.store).list();
    expect(experiments[0]).toMatchObject({ status: 'failed', summary: { cases: 1 } });
  });
});
