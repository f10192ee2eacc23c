import { HubosError } from '../../errors.ts';
import type { Scorer } from '../experiment.ts';

/** Types a scorer of your own: `defineScorer({ name: 'polite', score: ({ output }) => ({ score, reason }) })`. */
export function defineScorer(scorer: Scorer): Scorer {
  if (typeof scorer !== 'object' || scorer === null || typeof scorer.score !== 'function')
    throw new HubosError('SCORER_INVALID', 'defineScorer() takes { name, score(input) }');
  if (typeof scorer.name !== 'string' || !/^[a-z0-9][a-z0-9_:-]{0,63}$/i.test(scorer.name))
    throw new HubosError(
      'SCORER_INVALID',
      `a scorer's name must be 1-64 letters, digits, '-', '_' or ':', got ${JSON.stringify(scorer.name)}`,
    );
  return scorer;
}

/** A verdict, its score clamped to [0, 1]. */
export const score = (value: number, reason: string) => ({
  score: Math.min(1, Math.max(0, value)),
  reason,
});

/** Throws SCORER_INVALID for an option a built-in does not know. */
export function onlyOptions(scorer: string, options: Record<string, unknown>, known: string[]): void {
  for (const key of Object.keys(options))
    if (!known.includes(key))
      throw new HubosError(
        'SCORER_INVALID',
        `scorer "${scorer}": unknown option "${key}" (${known.length ? `its options: ${known.join(', ')}` : 'it takes none'})`,
      );
}
