import type { Scorer } from '../experiment.ts';
import { budgetScorer } from './budget.ts';

/** `latency`: the run took at most `expected.maxLatencyMs` (or `{ max }`) milliseconds. */
export function latencyScorer(options: Record<string, unknown> = {}): Scorer {
  return budgetScorer('latency', 'maxLatencyMs', options, (run) => ({ value: run.latencyMs, unit: 'ms' }));
}
