import type { Usage } from '../agent/messages.ts';
import type { PriceTable } from './model-prices.ts';
import { priceOf } from './price-of.ts';

/**
 * What `usage` of model `model` cost in USD, or null when the table has no price for the model.
 * Cached input tokens are part of `inputTokens`, priced at `cachedInput` (or `input` without one).
 */
export function costOf(model: string, usage: Partial<Usage>, table: PriceTable): number | null {
  const price = priceOf(model, table);
  if (!price) return null;
  const input = usage.inputTokens ?? 0;
  const cached = Math.min(usage.cachedInputTokens ?? 0, input);
  const usd =
    ((input - cached) * price.input +
      cached * (price.cachedInput ?? price.input) +
      (usage.outputTokens ?? 0) * price.output) /
    1_000_000;
  return roundUsd(usd);
}

/** Cents of a cent are enough, and sums of floats should not print as 0.30000000000000004. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e8) / 1e8;
}
