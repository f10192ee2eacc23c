import type { Scorer } from '../experiment.ts';
import { budgetScorer } from './budget.ts';

/** `steps`: the run made at most `expected.maxSteps` (or `{ max }`) model calls. */
export function stepsScorer(options: Record<string, unknown> = {}): Scorer {
  return budgetScorer('steps', 'maxSteps', options, (run) => ({ value: run.steps, unit: 'steps' }));
}
