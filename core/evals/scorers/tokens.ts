import type { Scorer } from '../experiment.ts';
import { budgetScorer } from './budget.ts';

/** `tokens`: the run used at most `expected.maxTokens` (or `{ max }`) tokens, in and out. */
export function tokensScorer(options: Record<string, unknown> = {}): Scorer {
  return budgetScorer('tokens', 'maxTokens', options, (run) => ({
    value: run.usage.totalTokens,
    unit: 'tokens',
  }));
}
