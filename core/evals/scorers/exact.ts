import type { Scorer } from '../experiment.ts';
import { onlyOptions, score } from './define-scorer.ts';

/** `exact`: the answer is `expected.output`, both trimmed (`{ caseSensitive: false }` ignores case). */
export function exactScorer(options: Record<string, unknown> = {}): Scorer {
  onlyOptions('exact', options, ['caseSensitive']);
  const fold =
    options.caseSensitive === false ? (text: string) => text.toLowerCase() : (text: string) => text;
  return {
    name: 'exact',
    score({ case: item, output }) {
      const expected = item.expected?.output;
      if (expected === undefined) return undefined;
      return fold(output.trim()) === fold(expected.trim())
        ? score(1, 'the answer is the expected one')
        : score(
            0,
            `expected ${JSON.stringify(clip(expected.trim()))}, got ${JSON.stringify(clip(output.trim()))}`,
          );
    },
  };
}

export const clip = (text: string, max = 120): string =>
  text.length > max ? `${text.slice(0, max)}…` : text;
