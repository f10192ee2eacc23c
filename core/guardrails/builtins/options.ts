import { didYouMean } from '../../closest-name.ts';
import { HubosError } from '../../errors.ts';
import { describeValue } from '../../json-schema.ts';

/**
 * The options of built-in `name`, checked to be an object of only the `allowed` keys: a typo
 * (`{ use: 'pii', kind: [...] }`) fails the boot instead of being ignored.
 */
export function readOptions(
  name: string,
  options: unknown,
  allowed: readonly string[],
): Record<string, unknown> {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options))
    throw invalid(name, `its options must be an object, got ${describeValue(options)}`);
  for (const key of Object.keys(options)) {
    if (allowed.includes(key)) continue;
    const hint = didYouMean(key, allowed) || (allowed.length ? ` (allowed: ${allowed.join(', ')})` : '');
    throw invalid(name, `unknown option "${key}"${hint}`);
  }
  return options as Record<string, unknown>;
}

/** GUARDRAIL_INVALID for built-in `name`: `pii: option "kinds" ...`. */
export function invalid(name: string, problem: string): HubosError {
  return new HubosError('GUARDRAIL_INVALID', `${name}: ${problem}`);
}

/** `option` as one of `allowed`, or `fallback` when absent. */
export function oneOf<T extends string>(
  name: string,
  option: string,
  value: unknown,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw invalid(
    name,
    `option "${option}" must be ${allowed.map((a) => `'${a}'`).join(' or ')}, got ${describeValue(value)}`,
  );
}

/** `option` as an array of non-empty strings, or undefined when absent. */
export function stringList(name: string, option: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    throw invalid(name, `option "${option}" must be an array of strings, got ${describeValue(value)}`);
  value.forEach((item, i) => {
    if (typeof item !== 'string' || item.trim() === '')
      throw invalid(name, `option "${option}[${i}]" must be a non-empty string, got ${describeValue(item)}`);
  });
  return value as string[];
}

/**
 * A pattern of the config: a regex source (`'\\bsecret\\b'`) or `'/source/flags'`. Matched
 * case-insensitively unless flags say otherwise; a pattern that matches empty text would match
 * everywhere and is refused.
 */
export function parsePattern(name: string, option: string, pattern: string): RegExp {
  const literal = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  const source = literal ? literal[1]! : pattern;
  // 'g' and 'y' make test() keep state between values: the checks add 'g' themselves where they need it.
  const flags = literal ? literal[2]!.replace(/[gy]/g, '') : 'i';
  let regex: RegExp;
  try {
    regex = new RegExp(source, flags);
  } catch (error) {
    throw invalid(
      name,
      `option "${option}" is not a valid regular expression (${(error as Error).message}): write a JavaScript regex source, or '/source/flags'`,
    );
  }
  if (regex.test(''))
    throw invalid(
      name,
      `option "${option}" (${pattern}) matches empty text: make it match at least one character`,
    );
  return regex;
}

/** The same pattern, global, for finding every match. */
export const globally = (regex: RegExp): RegExp =>
  new RegExp(regex.source, regex.flags.includes('g') ? regex.flags : `${regex.flags}g`);
