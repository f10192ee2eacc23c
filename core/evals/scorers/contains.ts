import type { Scorer } from '../experiment.ts';
import { onlyOptions, score } from './define-scorer.ts';

/** `contains`: the share of `expected.contains` texts the answer holds (case-insensitively unless `{ caseSensitive: true }`). */
export function containsScorer(options: Record<string, unknown> = {}): Scorer {
  onlyOptions('contains', options, ['caseSensitive']);
  const fold = options.caseSensitive === true ? (text: string) => text : (text: string) => text.toLowerCase();
  return {
    name: 'contains',
    score({ case: item, output }) {
      const wanted = item.expected?.contains;
      if (wanted === undefined) return undefined;
      const list = typeof wanted === 'string' ? [wanted] : wanted;
      const missing = list.filter((text) => !fold(output).includes(fold(text)));
      return missing.length === 0
        ? score(1, `contains ${list.map((text) => JSON.stringify(text)).join(', ')}`)
        : score(
            (list.length - missing.length) / list.length,
            `missing ${missing.map((text) => JSON.stringify(text)).join(', ')}`,
          );
    },
  };
}
