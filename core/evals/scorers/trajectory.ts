import { isDeepStrictEqual } from 'node:util';
import type { Scorer } from '../experiment.ts';
import { onlyOptions, score } from './define-scorer.ts';

type Expected = { name: string; input?: Record<string, unknown> };
type Made = { name: string; input: unknown };

/**
 * `trajectory`: the run's tool calls against `expected.tools`: `exact` (those calls, no others, in
 * order), `ordered` (default; in order, others between allowed) or `unordered`. An expected call
 * with `input` matches a call whose arguments include those (a subset, compared deeply).
 * The score is the share of expected calls found (0 for `exact` unless all match and none is extra).
 */
export function trajectoryScorer(options: Record<string, unknown> = {}): Scorer {
  onlyOptions('trajectory', options, []);
  return {
    name: 'trajectory',
    score({ case: item, run }) {
      const wanted = item.expected?.tools;
      if (wanted === undefined) return undefined;
      const expected = wanted.calls.map((call) => (typeof call === 'string' ? { name: call } : call));
      const made = run.toolCalls;
      const match = wanted.match ?? 'ordered';
      const found = match === 'unordered' ? unordered(expected, made) : ordered(expected, made);
      const missing = expected.filter((_, i) => !found[i]).map(show);
      const got = made.map((call) => call.name).join(', ') || 'none';
      if (match === 'exact') {
        const ok = missing.length === 0 && made.length === expected.length;
        return ok
          ? score(1, `called exactly ${got}`)
          : score(0, `expected exactly ${expected.map(show).join(', ') || 'no calls'}; called ${got}`);
      }
      if (expected.length === 0) return score(1, 'no calls were expected');
      const share = found.filter(Boolean).length / expected.length;
      return missing.length === 0
        ? score(1, `called ${expected.map(show).join(', ')}${match === 'ordered' ? ' in order' : ''}`)
        : score(
            share,
            `missing ${missing.join(', ')}${match === 'ordered' ? ' (in order)' : ''}; called ${got}`,
          );
    },
  };
}

/** Each expected call matched to a later call than the one before it (greedy, in order). */
function ordered(expected: Expected[], made: Made[]): boolean[] {
  let at = 0;
  return expected.map((call) => {
    for (let i = at; i < made.length; i++)
      if (fits(call, made[i] as Made)) {
        at = i + 1;
        return true;
      }
    return false;
  });
}

/** Each expected call matched to a call no other expected one took. */
function unordered(expected: Expected[], made: Made[]): boolean[] {
  const taken = new Set<number>();
  return expected.map((call) => {
    const i = made.findIndex((other, j) => !taken.has(j) && fits(call, other));
    if (i === -1) return false;
    taken.add(i);
    return true;
  });
}

function fits(call: Expected, made: Made): boolean {
  return call.name === made.name && (call.input === undefined || isSubset(call.input, made.input));
}

/** Whether `actual` has every key of `part` with a deeply equal value (objects inside compared the same way). */
function isSubset(part: unknown, actual: unknown): boolean {
  if (part === null || typeof part !== 'object' || Array.isArray(part))
    return isDeepStrictEqual(part, actual);
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  return Object.entries(part).every(([key, value]) =>
    isSubset(value, (actual as Record<string, unknown>)[key]),
  );
}

function show(call: Expected): string {
  return call.input ? `${call.name}(${JSON.stringify(call.input)})` : call.name;
}
