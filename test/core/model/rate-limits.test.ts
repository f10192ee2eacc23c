import { describe, expect, it } from 'vitest';
import { LocalBus } from '../../../core/bus/local.ts';
import type { LanguageModel, ModelChunk, ModelRequest } from '../../../core/index.ts';
import { ModelRateLimiter } from '../../../core/model/rate-limits.ts';

/** A model whose stream stays open until `open` is released; counts streams at once. */
function slowModel(provider = 'p') {
  const seen = { now: 0, max: 0, calls: 0 };
  const model: LanguageModel = {
    provider,
    modelId: 'm',
    async *stream(): AsyncGenerator<ModelChunk> {
      seen.calls++;
      seen.now++;
      seen.max = Math.max(seen.max, seen.now);
      try {
        await new Promise((resolve) => setTimeout(resolve, 30));
        yield { type: 'finish', finishReason: 'stop' };
      } finally {
        seen.now--;
      }
    },
  };
  return { model, seen };
}

const request = (signal = new AbortController().signal, content = 'hi'): ModelRequest => ({
  messages: [{ role: 'user', content }],
  tools: [],
  signal,
});

async function drain(model: LanguageModel, req: ModelRequest): Promise<void> {
  for await (const _ of model.stream(req));
}

describe('ModelRateLimiter', () => {
  it('leaves a model of a provider without limits as it is', () => {
    const { model } = slowModel('free');
    expect(new ModelRateLimiter(new LocalBus(), { other: { concurrency: 1 } }).wrap(model)).toBe(model);
  });

  it('lets no more than `concurrency` calls of a provider stream at once, and frees the slot at the end', async () => {
    const bus = new LocalBus();
    const limiter = new ModelRateLimiter(bus, { p: { concurrency: 2 } });
    const { model, seen } = slowModel();
    const limited = limiter.wrap(model);
    await Promise.all(Array.from({ length: 6 }, () => drain(limited, request())));
    expect(seen).toMatchObject({ calls: 6, max: 2, now: 0 });
    // Every slot was given back.
    expect(await bus.acquire('model-concurrency:p', 2, 1000)).toBeDefined();
    expect(await bus.acquire('model-concurrency:p', 2, 1000)).toBeDefined();
  });

  it('makes a call past requestsPerMinute wait for the next minute (until the run is cancelled)', async () => {
    const limited = new ModelRateLimiter(new LocalBus(), { p: { requestsPerMinute: 1 } }).wrap(
      slowModel().model,
    );
    await drain(limited, request());
    const controller = new AbortController();
    const second = drain(limited, request(controller.signal));
    setTimeout(() => controller.abort(new Error('cancelled')), 50);
    await expect(second).rejects.toThrow('cancelled');
  });

  it('counts the estimated tokens and maxTokens against tokensPerMinute; one call over the limit goes alone', async () => {
    const bus = new LocalBus();
    const limited = new ModelRateLimiter(bus, { p: { tokensPerMinute: 100 } }).wrap(slowModel().model);
    // 350 characters ≈ 100 tokens, plus 50 for the answer: more than the whole limit, alone in its window.
    await drain(limited, { ...request(undefined, 'x'.repeat(350)), maxTokens: 50 });
    expect((await bus.hit('model-tpm:p', 60_000, 0)).count).toBe(150);
    const controller = new AbortController();
    const next = drain(limited, request(controller.signal));
    setTimeout(() => controller.abort(new Error('cancelled')), 50);
    await expect(next).rejects.toThrow('cancelled');
  });

  it('gives the slot back when the stream throws, or its reader stops early', async () => {
    const bus = new LocalBus();
    const failing: LanguageModel = {
      provider: 'p',
      modelId: 'm',
      async *stream(): AsyncGenerator<ModelChunk> {
        yield { type: 'text-delta', delta: 'half' };
        throw new Error('dropped');
      },
    };
    const limited = new ModelRateLimiter(bus, { p: { concurrency: 1 } }).wrap(failing);
    await expect(drain(limited, request())).rejects.toThrow('dropped');
    for await (const _ of limited.stream(request())) break;
    const slot = await bus.acquire('model-concurrency:p', 1, 1000);
    expect(slot).toBeDefined();
  });
});
