// A result near the limit is counted with the model's tokenizer; when that cannot load (a trimmed
// install without gpt-tokenizer) the estimate decides, as compaction's does, and the run goes on.
import { describe, expect, it, vi } from 'vitest';
import { LargeResults } from '../../core/context/large-results.ts';
import { MemoryStore, type Message } from '../../core/index.ts';

vi.mock('gpt-tokenizer/encoding/o200k_base', () => {
  throw new Error("Cannot find package 'gpt-tokenizer'");
});

describe('large results without a tokenizer', () => {
  it('keeps a result by the estimate when the model’s tokenizer cannot load', async () => {
    const keeper = new LargeResults(
      new MemoryStore(),
      { maxTokens: 1_000, headTokens: 100 },
      { runId: 'r1', agent: 'helper', principal: 'alice' },
      'openai:gpt-4o',
    );
    // About 1,430 tokens by the estimate: within twice the limit, where the tokenizer is asked.
    const result: Message = { role: 'tool', toolCallId: 'c1', name: 'dump', content: 'word '.repeat(1_000) };
    let offered = 0;
    const [kept] = await keeper.shorten([result], () => offered++);
    expect(kept!.content).toContain('[Result cut: it is 5000 characters');
    expect(offered).toBe(1);
    // Under half the limit the estimate alone says it fits: no count is needed.
    const small: Message = { ...result, content: 'word '.repeat(100) };
    expect(await keeper.shorten([small], () => offered++)).toEqual([small]);
  });
});
