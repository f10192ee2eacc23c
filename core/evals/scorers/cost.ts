import type { Scorer } from '../experiment.ts';
import { budgetScorer } from './budget.ts';

/**
 * `cost`: the run cost at most `expected.maxCost` (or `{ max }`) US dollars, priced as the usage
 * routes price it (the config's `pricing` over the built-in list). A run whose model has no price
 * scores 0, saying so: a budget nobody can check is not met.
 */
export function costScorer(options: Record<string, unknown> = {}): Scorer {
  return budgetScorer('cost', 'maxCost', options, (run) =>
    run.cost === undefined
      ? 'the run\'s model has no price: add it under "pricing" in the config to check a cost budget'
      : { value: run.cost, unit: 'USD' },
  );
}
