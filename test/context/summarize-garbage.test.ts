// A summarizing model that ignores maxTokens and streams without end is read no further than a
// summary of that size can be long: a longer one would crowd out every later request of the session.
import { describe, expect, it } from 'vitest';
import { summarize } from '../../core/context/summarize.ts';
import type { LanguageModel, ModelChunk } from '../../core/index.ts';

describe('summarize', () => {
  it('stops reading a summary past what maxTokens allows, and closes the stream', async () => {
    let closed = false;
    let streamed = 0;
    const garbage: LanguageModel = {
      provider: 'fake',
      modelId: 'garbage',
      async *stream(): AsyncGenerator<ModelChunk> {
        try {
          // A million characters, in pieces, with no regard for maxTokens.
          for (let i = 0; i < 100_000; i++) {
            streamed++;
            yield { type: 'text-delta', delta: 'garbage!! ' };
          }
          yield { type: 'finish', finishReason: 'stop' };
        } finally {
          closed = true;
        }
      },
    };
    const { summary } = await summarize({
      model: garbage,
      previous: undefined,
      messages: [{ role: 'user', content: 'hello' }],
      budget: 1_000,
      maxTokens: 256,
      signal: new AbortController().signal,
    });
    expect(summary!.length).toBeLessThanOrEqual(256 * 6);
    expect(summary!.length).toBeGreaterThan(256 * 4);
    expect(closed).toBe(true);
    expect(streamed).toBeLessThan(1_000);
  });
});
