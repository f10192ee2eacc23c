// What a summary costs is told with the model that wrote it, so a cost budget prices it as that
// model (a summarizer may cost more than the run's model); a budget needs its price.
import { describe, expect, it } from 'vitest';
import { BudgetMeter } from '../../core/agent/budget.ts';
import { Compaction } from '../../core/context/compaction.ts';
import { MemoryStore, type Message, type Usage } from '../../core/index.ts';
import { filler, NoteModel } from './note-model.ts';

describe('the usage of summaries', () => {
  it('is told with the summarizing model', async () => {
    const summarizer = new NoteModel(100_000);
    const told: [Partial<Usage>, string][] = [];
    const all: Message[] = [];
    for (let turn = 1; turn <= 12; turn++)
      all.push(
        { role: 'user', content: `fact: n${turn} = v${turn} ${filler(400, turn)}` },
        { role: 'assistant', content: 'noted' },
      );
    const run = new Compaction({
      agent: 'helper',
      config: {
        threshold: 0.8,
        keepTurns: 2,
        contextWindow: 1_000,
        explicit: true,
        model: 'fake:summarizer',
      },
      limits: {},
      store: new MemoryStore(),
      persist: true,
      resolveModel: () => summarizer,
    }).start({
      runId: 'r1',
      sessionId: undefined,
      principal: 'alice',
      model: new NoteModel(1_000),
      modelRef: 'fake:notes',
      pinned: undefined,
      signal: new AbortController().signal,
      emit: () => undefined,
      addUsage: (usage, model) => told.push([usage, model]),
    })!;
    await run.messages(1, all, { tools: [] });
    expect(summarizer.summaries.length).toBeGreaterThan(0);
    expect(told.length).toBeGreaterThan(0);
    for (const [usage, model] of told) {
      expect(model).toBe('fake:summarizer');
      expect(usage.inputTokens).toBeGreaterThan(0);
    }
  });

  it('needs the summarizer’s price in a cost budget', () => {
    const prices = { notes: { input: 1, output: 1 } };
    expect(
      () => new BudgetMeter({ costUsd: 1 }, prices, 'fake:notes', 'agent "helper"', ['fake:summarizer']),
    ).toThrow(
      'agent "helper": a costUsd budget needs the price of model "fake:summarizer" (a fallback of its model or its summarizer, priced as itself): add it under "pricing" in agent.config.ts',
    );
    const meter = new BudgetMeter(
      { costUsd: 1 },
      { ...prices, summarizer: { input: 10, output: 10 } },
      'fake:notes',
      'agent "helper"',
      ['fake:summarizer'],
    );
    meter.note('fake:summarizer', { inputTokens: 200_000 });
    expect(() =>
      meter.beforeStep(1, { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 } as Usage),
    ).toThrow("the run's costUsd budget is spent: $2 used, the limit is $1 (budget.costUsd)");
  });
});
