import type { RunStep } from '../runs/run-table.ts';
import { costOf } from './cost-of.ts';
import type { PriceTable } from './model-prices.ts';
import { UsageSum } from './usage-totals.ts';

/** A run's tokens and cost over its model calls. */
export interface RunUsageTotals {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  /** USD of the model calls that have a price; null when none had one. */
  cost: number | null;
  /** Models the run called that have no price (their tokens are counted, their cost is not). */
  unpricedModels?: string[];
}

/** The totals of a run's steps (its model calls; tool calls and workflow steps have no tokens of their own). */
export function runTotals(steps: readonly RunStep[], prices: PriceTable): RunUsageTotals {
  const sum = new UsageSum();
  const unpriced = new Set<string>();
  for (const step of steps) {
    if (step.kind !== 'model') continue;
    const usage = step.usage ?? { inputTokens: 0, outputTokens: 0 };
    const cost = costOf(step.name, usage, prices);
    if (cost === null) unpriced.add(step.name);
    sum.add({
      runs: 0,
      modelCalls: 1,
      inputTokens: usage.inputTokens ?? 0,
      outputTokens: usage.outputTokens ?? 0,
      cachedInputTokens: usage.cachedInputTokens ?? 0,
      cost,
    });
  }
  const { inputTokens, outputTokens, cachedInputTokens, cost } = sum.totals();
  return {
    inputTokens,
    outputTokens,
    cachedInputTokens,
    cost,
    ...(unpriced.size > 0 && { unpricedModels: [...unpriced].sort() }),
  };
}
