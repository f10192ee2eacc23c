import { describe, expect, it } from 'vitest';
import { addUsage, emptyUsage } from '../../../core/agent/messages.ts';
import { BUILT_IN_PRICES, costOf, priceOf, priceTable } from '../../../core/index.ts';

describe('priceOf', () => {
  it('finds a model by its id, a dated id by its longest known prefix, and drops a provider prefix', () => {
    expect(priceOf('gpt-4.1', BUILT_IN_PRICES)).toEqual({ input: 2, output: 8, cachedInput: 0.5 });
    expect(priceOf('gpt-4.1-mini-2025-04-14', BUILT_IN_PRICES)).toEqual(BUILT_IN_PRICES['gpt-4.1-mini']);
    expect(priceOf('gpt-4.1-2025-04-14', BUILT_IN_PRICES)).toEqual(BUILT_IN_PRICES['gpt-4.1']);
    expect(priceOf('claude-sonnet-4-20250514', BUILT_IN_PRICES)).toEqual(BUILT_IN_PRICES['claude-sonnet-4']);
    expect(priceOf('gpt-4o-mini-2024-07-18', BUILT_IN_PRICES)).toEqual(BUILT_IN_PRICES['gpt-4o-mini']);
    expect(priceOf('openai:o4-mini', BUILT_IN_PRICES)).toEqual(BUILT_IN_PRICES['o4-mini']);
  });

  it('knows no model it has no price for, nor one that merely shares letters with a known id', () => {
    expect(priceOf('llama-3-70b', BUILT_IN_PRICES)).toBeUndefined();
    expect(priceOf('o3mini', BUILT_IN_PRICES)).toBeUndefined();
    expect(priceOf('gpt-4.10', BUILT_IN_PRICES)).toBeUndefined();
    expect(priceOf('offline', BUILT_IN_PRICES)).toBeUndefined();
  });

  it("takes the config's prices over the built-in ones, and adds models", () => {
    const table = priceTable({ 'gpt-4.1': { input: 1, output: 4 }, local: { input: 0, output: 0 } });
    expect(priceOf('gpt-4.1-2025-04-14', table)).toEqual({ input: 1, output: 4 });
    expect(priceOf('local', table)).toEqual({ input: 0, output: 0 });
    // A price for one provider's model only, by the step's `provider:id`.
    const byProvider = priceTable({ 'azure:gpt-4o': { input: 3, output: 12 } });
    expect(priceOf('azure:gpt-4o', byProvider)).toEqual({ input: 3, output: 12 });
    expect(priceOf('openai:gpt-4o', byProvider)).toEqual(BUILT_IN_PRICES['gpt-4o']);
    expect(priceOf('gpt-4o', table)).toEqual(BUILT_IN_PRICES['gpt-4o']);
  });
});

describe('costOf', () => {
  it('prices input, output and cached input per million tokens', () => {
    // 1M prompt tokens of which 400k cached, 100k out, on gpt-4.1: 0.6*2 + 0.4*0.5 + 0.1*8.
    expect(
      costOf(
        'gpt-4.1',
        { inputTokens: 1_000_000, outputTokens: 100_000, cachedInputTokens: 400_000 },
        BUILT_IN_PRICES,
      ),
    ).toBe(2.2);
    expect(
      costOf('claude-sonnet-4-20250514', { inputTokens: 1000, outputTokens: 500 }, BUILT_IN_PRICES),
    ).toBe(0.0105);
  });

  it('prices cached tokens as input when the model has no cached price, and never more than the input', () => {
    const table = { m: { input: 10, output: 0 } };
    expect(costOf('m', { inputTokens: 100_000, outputTokens: 0, cachedInputTokens: 50_000 }, table)).toBe(1);
    expect(
      costOf('gpt-4.1', { inputTokens: 10, outputTokens: 0, cachedInputTokens: 99 }, BUILT_IN_PRICES),
    ).toBe(0.000005);
  });

  it('is null for a model with no price, and 0 for no tokens', () => {
    expect(costOf('mystery-1', { inputTokens: 5, outputTokens: 5 }, BUILT_IN_PRICES)).toBeNull();
    expect(costOf('gpt-4o', {}, BUILT_IN_PRICES)).toBe(0);
  });
});

describe('addUsage', () => {
  it('sums cached input tokens once some call reports them, and leaves them out until then', () => {
    const plain = addUsage(emptyUsage(), { inputTokens: 3, outputTokens: 1 });
    expect(plain).toEqual({ inputTokens: 3, outputTokens: 1 });
    const cached = addUsage(plain, { inputTokens: 10, outputTokens: 2, cachedInputTokens: 8 });
    expect(cached).toEqual({ inputTokens: 13, outputTokens: 3, cachedInputTokens: 8 });
    expect(addUsage(cached, { inputTokens: 1, outputTokens: 1 })).toEqual({
      inputTokens: 14,
      outputTokens: 4,
      cachedInputTokens: 8,
    });
  });
});
