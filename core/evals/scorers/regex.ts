import type { Scorer } from '../experiment.ts';
import { onlyOptions, score } from './define-scorer.ts';
import { clip } from './exact.ts';
import { parsePattern } from './pattern.ts';

/** `regex`: the answer matches `expected.pattern` (`/source/flags` or a bare source). */
export function regexScorer(options: Record<string, unknown> = {}): Scorer {
  onlyOptions('regex', options, []);
  return {
    name: 'regex',
    score({ case: item, output }) {
      const pattern = item.expected?.pattern;
      if (pattern === undefined) return undefined;
      const regex = parsePattern(pattern);
      regex.lastIndex = 0;
      return regex.test(output)
        ? score(1, `matches ${pattern}`)
        : score(0, `${JSON.stringify(clip(output))} does not match ${pattern}`);
    },
  };
}
