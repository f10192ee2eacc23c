import { HubosError } from '../../errors.ts';
import type { CaseExpectations, Scorer, ScorerInput } from '../experiment.ts';
import { onlyOptions, score } from './define-scorer.ts';

/**
 * A budget scorer: 1 when the run's `measure` is within the budget (the option `max`, else the
 * case's `expected[key]`), 0 over it. A case with neither is not scored.
 */
export function budgetScorer(
  name: string,
  key: keyof Pick<CaseExpectations, 'maxLatencyMs' | 'maxSteps' | 'maxTokens' | 'maxCost'>,
  options: Record<string, unknown>,
  measure: (run: ScorerInput['run']) => { value: number; unit: string } | string,
): Scorer {
  onlyOptions(name, options, ['max']);
  const max = options.max;
  if (max !== undefined && (typeof max !== 'number' || !Number.isFinite(max) || max < 0))
    throw new HubosError(
      'SCORER_INVALID',
      `scorer "${name}": "max" must be a number of 0 or more, got ${JSON.stringify(max)}`,
    );
  return {
    name,
    score({ case: item, run }) {
      const budget = (max as number | undefined) ?? item.expected?.[key];
      if (budget === undefined) return undefined;
      const measured = measure(run);
      if (typeof measured === 'string') return score(0, measured);
      const { value, unit } = measured;
      return value <= budget
        ? score(1, `${value} ${unit} within ${budget}`)
        : score(0, `${value} ${unit} over the budget of ${budget}`);
    },
  };
}
