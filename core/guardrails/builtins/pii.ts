import { defineGuardrail, type Guardrail } from '../guardrail.ts';
import { invalid, oneOf, readOptions, stringList } from './options.ts';
import { findPii, PII_KINDS, type PiiKind } from './pii-detectors.ts';
import { checkEachString, type TextVerdict } from './text-values.ts';

export type { PiiKind } from './pii-detectors.ts';

export interface PiiOptions {
  /** What to look for; default all: `email`, `phone`, `card` (Luhn), `iban` (mod 97), `api-key`. */
  kinds?: PiiKind[];
  /** `redact` (default) replaces each with `[redacted:<kind>]`; `trip` stops the run. */
  action?: 'redact' | 'trip';
}

const WORDS: Record<PiiKind, [one: string, many: string]> = {
  email: ['e-mail address', 'e-mail addresses'],
  phone: ['phone number', 'phone numbers'],
  card: ['card number', 'card numbers'],
  iban: ['IBAN', 'IBANs'],
  'api-key': ['API key', 'API keys'],
};

/** `2 e-mail addresses and 1 card number`: what was found, never the values. */
function sayFound(counts: Map<PiiKind, number>): string {
  const parts = [...counts].map(([kind, n]) => `${n} ${WORDS[kind][n === 1 ? 0 : 1]}`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0]!;
}

/**
 * `pii`: finds e-mail addresses, phone numbers, card numbers, IBANs and API keys in text (and in
 * every string of tool arguments and results) and redacts them as `[redacted:<kind>]`, or trips.
 */
export function pii(options: PiiOptions = {}): Guardrail {
  const read = readOptions('pii', options, ['kinds', 'action']);
  const listed = stringList('pii', 'kinds', read.kinds);
  for (const [i, kind] of (listed ?? []).entries())
    if (!(PII_KINDS as readonly string[]).includes(kind))
      throw invalid(
        'pii',
        `option "kinds[${i}]" must be one of ${PII_KINDS.map((k) => `'${k}'`).join(', ')}, got "${kind}"`,
      );
  if (listed?.length === 0)
    throw invalid('pii', 'option "kinds" is empty: list at least one kind, or leave it out for all of them');
  const kinds = new Set<PiiKind>((listed as PiiKind[] | undefined) ?? PII_KINDS);
  const action = oneOf('pii', 'action', read.action, ['redact', 'trip'], 'redact');

  /** One text, its finds counted into `counts` (all the strings of a JSON value share one reason). */
  const checkText = (text: string, counts: Map<PiiKind, number>): TextVerdict => {
    const matches = findPii(text).filter((match) => kinds.has(match.kind));
    if (matches.length === 0) return undefined;
    for (const { kind } of matches) counts.set(kind, (counts.get(kind) ?? 0) + 1);
    if (action === 'trip') return { action: 'trip', reason: `found ${sayFound(counts)}` };
    let redacted = '';
    let from = 0;
    for (const { kind, start, end } of matches) {
      redacted += `${text.slice(from, start)}[redacted:${kind}]`;
      from = end;
    }
    return { action: 'rewrite', value: redacted + text.slice(from), reason: '' };
  };

  return defineGuardrail({
    name: 'pii',
    streaming: 'sentence',
    check(value) {
      const counts = new Map<PiiKind, number>();
      const verdict = checkEachString(value, (text) => checkText(text, counts));
      return verdict?.action === 'rewrite' ? { ...verdict, reason: `redacted ${sayFound(counts)}` } : verdict;
    },
  });
}
