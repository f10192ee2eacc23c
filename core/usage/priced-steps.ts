import type { RunStep } from '../runs/run-table.ts';
import { costOf } from './cost-of.ts';
import type { PriceTable } from './model-prices.ts';

/** A run's step as the studio shows it: a model call with a price carries its cost in USD. */
export type PricedStep = RunStep & { cost?: number };

/** Each model call's cost beside its tokens (a model with no price gets none: its tokens show alone). */
export function pricedSteps(steps: readonly RunStep[], prices: PriceTable): PricedStep[] {
  return steps.map((step) => {
    if (step.kind !== 'model' || !step.usage) return step;
    const cost = costOf(step.name, step.usage, prices);
    return cost === null ? step : { ...step, cost };
  });
}
