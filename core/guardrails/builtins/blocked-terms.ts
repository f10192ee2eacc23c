import { defineGuardrail, type Guardrail } from '../guardrail.ts';
import { type FoldedText, foldedOnly, foldText, originalSpans } from './folded-text.ts';
import { globally, invalid, oneOf, parsePattern, readOptions, stringList } from './options.ts';
import { checkEachString, type TextVerdict } from './text-values.ts';

export interface BlockedTermsOptions {
  /** Words and phrases, matched case-insensitively as whole words (`secret` is not found in `secretary`). */
  terms?: string[];
  /** Regular expressions: a source (`'\\bproject\\s+falcon\\b'`, case-insensitive) or `'/source/flags'`. */
  patterns?: string[];
  /** `trip` (default) stops the run; `redact` replaces each match with `[redacted:blocked-term]`. */
  action?: 'trip' | 'redact';
}

export const BLOCKED_TERM_LABEL = '[redacted:blocked-term]';

/** How much of what a streamed answer released is joined to its next piece: more than a phrase. */
const STRADDLE = 200;

/** Regex syntax in a term, escaped (the `u` flag refuses escapes of other characters). */
const escapeTerm = (term: string) =>
  term
    .normalize('NFKC')
    .trim()
    .replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')
    .replace(/\s+/g, '\\s+');

/** One term of many, on word boundaries in any script: a letter, digit or `_` must not touch it. */
function termsPattern(terms: readonly string[]): RegExp {
  const alternatives = [...terms].sort((a, b) => b.length - a.length).map(escapeTerm);
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}_])`, 'iu');
}

/**
 * `blocked-terms`: trips on (or redacts) words, phrases and patterns a config forbids. A reason
 * names the option that matched (`terms[2]`, `patterns[0]`), never the text: an answer that was
 * held back must not leak through its error.
 */
export function blockedTerms(options: BlockedTermsOptions = {}): Guardrail {
  const read = readOptions('blocked-terms', options, ['terms', 'patterns', 'action']);
  const terms = stringList('blocked-terms', 'terms', read.terms) ?? [];
  const sources = stringList('blocked-terms', 'patterns', read.patterns) ?? [];
  if (terms.length === 0 && sources.length === 0)
    throw invalid(
      'blocked-terms',
      `give at least one of "terms" (words: ['password']) or "patterns" (regexes: ['\\\\bproject\\\\s+falcon\\\\b'])`,
    );
  const action = oneOf('blocked-terms', 'action', read.action, ['trip', 'redact'], 'trip');
  const termRegexes = terms.map((term) => termsPattern([term]));
  const patterns = sources.map((source, i) => parsePattern('blocked-terms', `patterns[${i}]`, source));
  const everyTerm = terms.length > 0 ? globally(termsPattern(terms)) : undefined;
  const everyMatch = patterns.map(globally);
  const everyOne = [...termRegexes.map(globally), ...everyMatch];

  /** One text; redactions are counted into `counted` (all the strings of a JSON value share one reason). */
  /** One text, also as a reader sees it: `pass\u200Bword` and `ｐａｓｓｗｏｒｄ` are `password`. */
  const checkText = (text: string, counted: { redactions: number }): TextVerdict => {
    if (action === 'trip') {
      const folded = foldedOnly(text);
      const found = (regex: RegExp) => regex.test(text) || (folded !== undefined && regex.test(folded));
      const term = termRegexes.findIndex(found);
      if (term !== -1) return { action: 'trip', reason: `found a blocked term (terms[${term}])` };
      const pattern = patterns.findIndex(found);
      if (pattern !== -1)
        return { action: 'trip', reason: `matched a blocked pattern (patterns[${pattern}])` };
      return undefined;
    }
    const folded = foldText(text);
    if (folded) return redactFolded(text, folded, counted);
    let count = 0;
    const label = () => {
      count++;
      return BLOCKED_TERM_LABEL;
    };
    let redacted = everyTerm ? text.replace(everyTerm, label) : text;
    for (const pattern of everyMatch) redacted = redacted.replace(pattern, label);
    if (count === 0) return undefined;
    counted.redactions += count;
    return { action: 'rewrite', value: redacted, reason: '' };
  };

  /** Redacts in the original what matched in its folded form (overlapping matches as one). */
  const redactFolded = (text: string, folded: FoldedText, counted: { redactions: number }): TextVerdict => {
    const spans = [everyTerm, ...everyMatch]
      .flatMap((regex) => (regex ? originalSpans(folded, regex) : []))
      .sort((a, b) => a.start - b.start);
    const merged: { start: number; end: number }[] = [];
    for (const span of spans) {
      const last = merged.at(-1);
      if (last && span.start < last.end) last.end = Math.max(last.end, span.end);
      else merged.push({ ...span });
    }
    if (merged.length === 0) return undefined;
    counted.redactions += merged.length;
    let redacted = '';
    let from = 0;
    for (const { start, end } of merged) {
      redacted += text.slice(from, start) + BLOCKED_TERM_LABEL;
      from = end;
    }
    return { action: 'rewrite', value: redacted + text.slice(from), reason: '' };
  };

  /**
   * A streamed answer is checked a piece (a sentence, a line) at a time: a phrase split across two
   * (`project\n` then `falcon`) is looked for in the end of what was released joined to the piece,
   * matching only where it runs into the piece (what was released alone passed already).
   */
  const straddles = (text: string, before: string): number => {
    let tail = before.slice(-STRADDLE);
    if (tail.length < before.length) tail = tail.replace(/^\S*\s?/, '');
    const joined = tail + text;
    return everyOne.findIndex((every) => {
      for (const match of joined.matchAll(every))
        if (match.index + match[0].length > tail.length) return true;
      return false;
    });
  };

  return defineGuardrail({
    name: 'blocked-terms',
    streaming: 'sentence',
    check(value, ctx) {
      if (action === 'trip' && ctx.stage === 'output' && ctx.before && typeof value === 'string') {
        const found = straddles(value, ctx.before);
        if (found !== -1)
          return {
            action: 'trip',
            reason:
              found < termRegexes.length
                ? `found a blocked term (terms[${found}])`
                : `matched a blocked pattern (patterns[${found - termRegexes.length}])`,
          };
      }
      const counted = { redactions: 0 };
      const verdict = checkEachString(value, (text) => checkText(text, counted));
      if (verdict?.action !== 'rewrite') return verdict;
      const { redactions } = counted;
      return { ...verdict, reason: `redacted ${redactions} blocked ${redactions === 1 ? 'term' : 'terms'}` };
    },
  });
}
