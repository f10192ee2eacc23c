// A summarizing model that answers nothing (a refusal, a filter, a cut stream) must not cost the
// conversation what it was asked to summarize: the summary before it stays, nothing is kept over it.
import { describe, expect, it } from 'vitest';
import { Compaction } from '../../core/context/compaction.ts';
import { SUMMARY_INSTRUCTIONS } from '../../core/context/summarize.ts';
import { anchorOf, summaryKey, summaryTable } from '../../core/context/summary-store.ts';
import type { AgentEvent, LanguageModel, Message, ModelChunk, ModelRequest } from '../../core/index.ts';
import { MemoryStore } from '../../core/index.ts';
import { filler } from './note-model.ts';

/** Answers every summary request with no text at all. */
class SilentSummarizer implements LanguageModel {
  readonly provider = 'fake';
  readonly modelId = 'silent';
  asked = 0;
  async *stream(request: ModelRequest): AsyncGenerator<ModelChunk> {
    if (request.system === SUMMARY_INSTRUCTIONS) this.asked++;
    yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 0 } };
  }
}

describe('a summarizer that answers nothing', () => {
  it('leaves the conversation as it was: the earlier summary kept and sent, the turns verbatim', async () => {
    const store = new MemoryStore();
    const first: Message = { role: 'user', content: `fact: color = teal ${filler(300, 1)}` };
    const reply: Message = { role: 'assistant', content: 'noted' };
    const earlier = { summary: 'fact: color = teal', through: 2, anchor: anchorOf(reply) };
    await summaryTable(store).put(summaryKey('helper', 'alice~s'), {
      agent: 'helper',
      sessionId: 'alice~s',
      owner: 'alice',
      ...earlier,
      first: anchorOf(first),
      model: 'fake:silent',
      updatedAt: 1,
    });
    const all: Message[] = [first, reply];
    for (let turn = 2; turn <= 12; turn++)
      all.push({ role: 'user', content: filler(400, turn) }, { role: 'assistant', content: 'noted' });
    const model = new SilentSummarizer();
    const events: AgentEvent[] = [];
    const run = new Compaction({
      agent: 'helper',
      config: { threshold: 0.8, keepTurns: 2, contextWindow: 1_000, explicit: true },
      limits: {},
      store,
      persist: true,
    }).start({
      runId: 'r1',
      sessionId: 'alice~s',
      principal: 'alice',
      model,
      modelRef: 'fake:silent',
      pinned: all.at(-2),
      signal: new AbortController().signal,
      emit: (event) => events.push(event),
      addUsage: () => undefined,
    })!;
    const view = await run.messages(1, all, { tools: [] });
    expect(model.asked).toBeGreaterThan(0);
    expect(view[0]!.content).toContain('fact: color = teal');
    expect(view.slice(1)).toEqual(all.slice(2));
    expect(events.filter((event) => event.type === 'compaction')).toEqual([]);
    expect(await summaryTable(store).get(summaryKey('helper', 'alice~s'))).toMatchObject(earlier);
  });
});
