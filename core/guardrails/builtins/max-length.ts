import { describeValue } from '../../json-schema.ts';
import { defineGuardrail, type Guardrail, trip } from '../guardrail.ts';
import { invalid, readOptions } from './options.ts';

export interface MaxLengthOptions {
  /** The most characters allowed (UTF-16 code units, as JavaScript counts them); default 20,000. */
  max?: number;
}

const DEFAULT_MAX = 20_000;

/** A value's length: a string's own; JSON (tool arguments, a tool's output) as its JSON text. */
function lengthOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return String(value).length;
  }
}

/**
 * `max-length`: trips on a value longer than `max` characters. At `output` it counts the whole
 * answer so far (what was released before the piece, and the piece), so a long answer trips as
 * soon as it crosses the limit, whatever the size of its sentences.
 */
export function maxLength(options: MaxLengthOptions = {}): Guardrail {
  const read = readOptions('max-length', options, ['max']);
  const max = read.max ?? DEFAULT_MAX;
  if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1)
    throw invalid(
      'max-length',
      `option "max" must be a whole number of characters, 1 or more (e.g. { use: 'max-length', max: 4000 }), got ${describeValue(max)}`,
    );
  return defineGuardrail({
    name: 'max-length',
    streaming: 'sentence',
    check(value, ctx) {
      const length = (ctx.stage === 'output' ? (ctx.before?.length ?? 0) : 0) + lengthOf(value);
      return length > max ? trip(`${length} characters, over the limit of ${max}`) : undefined;
    },
  });
}
