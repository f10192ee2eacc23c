import { IBAN_LENGTHS, ibanValid, luhnValid } from './checksums.ts';
import { type DigitGroup, type NumberRun, numberRuns } from './number-runs.ts';

/** What the `pii` guardrail finds. */
export type PiiKind = 'email' | 'phone' | 'card' | 'iban' | 'api-key';

export const PII_KINDS: readonly PiiKind[] = Object.freeze(['email', 'phone', 'card', 'iban', 'api-key']);

/** Where one was found: `text.slice(start, end)`. */
export interface PiiMatch {
  kind: PiiKind;
  start: number;
  end: number;
}

/**
 * The personal data and secrets in `text`, in order and not overlapping (where two overlap, the one
 * that starts first, then the longer, is kept: an IBAN's digits are not also a phone number).
 * Every detector scans linearly; none uses a pattern that can backtrack without bound.
 */
export function findPii(written: string): PiiMatch[] {
  const text = foldLookalikes(written);
  const ibans = ibanShapes(text);
  const found: PiiMatch[] = [...findEmails(text), ...findApiKeys(text)];
  for (const { start, end, valid } of ibans) if (valid) found.push({ kind: 'iban', start, end });
  let next = 0;
  for (const run of numberRuns(text)) {
    // An IBAN with a wrong check digit is a mistyped IBAN: its digits are not a card or phone number.
    while (next < ibans.length && ibans[next]!.end <= run.start) next++;
    if (next < ibans.length && ibans[next]!.start < run.end) continue;
    // One at a time: a long run can hold more matches than a call takes arguments.
    for (const match of cardsIn(run)) found.push(match);
    for (const match of phonesIn(run)) found.push(match);
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: PiiMatch[] = [];
  for (const match of found) if (match.start >= (kept.at(-1)?.end ?? 0)) kept.push(match);
  return kept;
}

/**
 * The text with what is written to look like ASCII folded to it, one UTF-16 unit for one so every
 * offset still points into the original: full-width forms (`４１１１`, `＠`), unicode spaces and
 * dashes, and zero-width characters (as a space: a gap between digit groups).
 */
function foldLookalikes(text: string): string {
  return text.replace(LOOKALIKES, (char) => {
    const code = char.charCodeAt(0);
    if (code >= 0xff01 && code <= 0xff5e) return String.fromCharCode(code - 0xfee0);
    return DASHES.test(char) ? '-' : ' ';
  });
}
const LOOKALIKES = /[\uff01-\uff5e\u2000-\u200d\u2010-\u2015\u2060\u2212\u202f\u205f\u3000\ufeff\u00ad]/g;
const DASHES = /[\u2010-\u2015\u2212]/;

// Addresses may be written in the alphabets that put spaces between words (jörg@exämple.de);
// scripts written without them are left out, or a sentence before an address would be taken with it.
const LOCAL = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{M}0-9._%+'-]/u;
const DOMAIN = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{M}0-9.-]/u;
const TOP_LEVEL = /^(?:[A-Za-z]{2,24}|xn--[a-z0-9-]{1,59})$/;
const LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?$/u;

/** E-mail addresses, from each `@` out: at most 64 characters before it and 253 after. */
export function findEmails(text: string): PiiMatch[] {
  const found: PiiMatch[] = [];
  let end = 0;
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > Math.max(end, at - 64) && LOCAL.test(text[start - 1]!)) start--;
    while (text[start] === '.') start++;
    if (start >= at || text[at - 1] === '.') continue;
    let stop = at + 1;
    while (stop < Math.min(text.length, at + 254) && DOMAIN.test(text[stop]!)) stop++;
    while (stop > at + 1 && (text[stop - 1] === '.' || text[stop - 1] === '-')) stop--;
    const labels = text.slice(at + 1, stop).split('.');
    if (labels.length < 2 || !TOP_LEVEL.test(labels.at(-1)!) || !labels.every((l) => LABEL.test(l))) continue;
    found.push({ kind: 'email', start, end: stop });
    end = stop;
    at = stop - 1;
  }
  return found;
}

/** Secrets by their providers' shapes, each word tested whole (anchored, so nothing backtracks). */
const KEY_SHAPES: readonly RegExp[] = [
  /^sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}$/, // OpenAI, Anthropic
  /^(?:AKIA|ASIA)[0-9A-Z]{16}$/, // AWS access key ids
  /^gh[pousr]_[A-Za-z0-9]{36,}$/, // GitHub tokens
  /^github_pat_[A-Za-z0-9_]{22,}$/,
  /^xox[bpars]-[A-Za-z0-9-]{10,}$/, // Slack
  /^AIza[0-9A-Za-z_-]{35}$/, // Google
];
const JWT = /^eyJ[A-Za-z0-9_-]{2,}\.eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{10,}$/;
const TOKEN = /[A-Za-z0-9_.-]+/g;

/** API keys (sk-…, sk-ant-…, AKIA…, ghp_…, github_pat_…, xoxb-…, AIza…) and signed JWTs (a bearer token). */
export function findApiKeys(text: string): PiiMatch[] {
  const found: PiiMatch[] = [];
  for (const token of text.matchAll(TOKEN)) {
    const word = token[0].replace(/\.+$/, '');
    if (word.length < 14) continue;
    if (JWT.test(word)) {
      found.push({ kind: 'api-key', start: token.index, end: token.index + word.length });
      continue;
    }
    let offset = token.index;
    for (const part of word.split('.')) {
      if (KEY_SHAPES.some((shape) => shape.test(part)) && /\d/.test(part))
        found.push({ kind: 'api-key', start: offset, end: offset + part.length });
      offset += part.length + 1;
    }
  }
  return found;
}

// In either case: `de89 3704 …` is as much an IBAN as `DE89 3704 …`.
const IBAN_CANDIDATE = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}/gi;

/**
 * What is written like an IBAN: a country's code, two check digits and the country's length of
 * letters and digits (compact or in groups of four); `valid` when its mod-97 check passes.
 */
export function ibanShapes(text: string): { start: number; end: number; valid: boolean }[] {
  const found: { start: number; end: number; valid: boolean }[] = [];
  const candidates = new RegExp(IBAN_CANDIDATE);
  for (let match = candidates.exec(text); match; match = candidates.exec(text)) {
    const length = IBAN_LENGTHS[match[0].slice(0, 2).toUpperCase()];
    let end = match.index;
    let compact = '';
    for (const char of match[0]) {
      if (compact.length === length) break;
      end++;
      if (char !== ' ') compact += char;
    }
    if (length !== undefined && compact.length === length && !/[A-Za-z0-9]/.test(text[end] ?? '')) {
      found.push({ start: match.index, end, valid: ibanValid(compact.toUpperCase()) });
      candidates.lastIndex = end;
    } else candidates.lastIndex = match.index + 1;
  }
  return found;
}

const span = (kind: PiiKind, groups: readonly DigitGroup[]): PiiMatch => ({
  kind,
  start: groups[0]!.start,
  end: groups.at(-1)!.end,
});
const digitsOf = (groups: readonly DigitGroup[]) => groups.map((g) => g.digits).join('');

/**
 * Card numbers in a run: 13-19 digits starting 2-6 (the card networks), written whole or in groups
 * (4-4-4-4, 4-6-5, ...) with one kind of separator (space, hyphen or dot), passing the Luhn check.
 */
function cardsIn(run: NumberRun): PiiMatch[] {
  if (run.plus) return [];
  const found: PiiMatch[] = [];
  const { groups } = run;
  // A card is the run's first digits, or follows another card in it: digits after other numbers are not one.
  for (let first = 0; first < groups.length; first++) {
    const head = groups[first]!;
    if (head.paren || !/^[2-6]/.test(head.digits)) break;
    let last = -1;
    if (head.digits.length >= 13 && head.digits.length <= 19) {
      if (luhnValid(head.digits)) last = first;
    } else if (head.digits.length === 4) {
      let digits = head.digits;
      for (let next = first + 1; next < groups.length; next++) {
        const group = groups[next]!;
        const separator = groups[first + 1]!.separator;
        if (
          group.paren ||
          group.separator !== separator ||
          (separator !== ' ' && separator !== '-' && separator !== '.')
        )
          break;
        if (group.digits.length < 3 || group.digits.length > 6) break;
        digits += group.digits;
        if (digits.length > 19) break;
        if (digits.length >= 13 && luhnValid(digits)) last = next;
      }
    }
    if (last === -1) break;
    found.push(span('card', groups.slice(first, last + 1)));
    first = last;
  }
  return found;
}

/** At most this many groups and digits make a phone number (E.164 allows 15 digits, 17 with `00`). */
const MAX_GROUPS = 7;
const MAX_DIGITS = 17;

/**
 * Phone numbers in a run: international (`+` or `00`, then 9-15 digits) or national in the forms
 * countries write them (`(415) 555-0132`, `020 7946 0958`, `06 12 34 56 78`, `0612345678`).
 * What is not one: dates (`2024-01-15`, `15.01.2024`: 8 digits), times (`10:30`), version numbers
 * and IP addresses (dots only in the 3-3-4 and 2-2-2-2-2 forms), amounts with thousands separators,
 * and plain numbers (10 digits that do not start with a trunk 0: a timestamp, an id).
 */
function phonesIn(run: NumberRun): PiiMatch[] {
  const found: PiiMatch[] = [];
  const { groups } = run;
  for (let first = 0; first < groups.length; first++) {
    let limit = first;
    let count = 0;
    while (limit < groups.length && limit - first < MAX_GROUPS) {
      count += groups[limit]!.digits.length;
      if (count > MAX_DIGITS) break;
      limit++;
    }
    let last = limit - 1;
    while (last >= first && !isPhone(groups.slice(first, last + 1), run.plus && first === 0)) last--;
    // Like a card, a phone number is the run's first digits or follows another one.
    if (last < first) break;
    found.push({
      kind: 'phone',
      start: first === 0 ? run.start : groups[first]!.start,
      end: groups[last]!.end,
    });
    first = last;
  }
  return found;
}

const NANP = /^[2-9]\d\d$/;

function isPhone(groups: readonly DigitGroup[], plus: boolean): boolean {
  // `+44 (0)20 …`: the (0) is the trunk prefix callers from inside the country dial, not part of the number.
  const counted = groups.filter((g, i) => !(i > 0 && g.paren && g.digits === '0'));
  const digits = digitsOf(counted);
  const lengths = groups.map((g) => g.digits.length);
  const dotted = groups.some((g) => g.separator === '.');
  if (dotted && !sameShape(lengths, [3, 3, 4]) && !sameShape(lengths, [2, 2, 2, 2, 2])) return false;
  if (plus)
    return digits.length >= 9 && digits.length <= 15 && !groups[0]!.paren && groups[0]!.digits[0] !== '0';
  if (/^00[1-9]/.test(digits))
    return digits.length >= 11 && digits.length <= 17 && groups.slice(1).every((g) => g.digits.length >= 2);
  if (digits.length < 10 || digits.length > 11) return false;
  if (groups.length === 1) return !groups[0]!.paren && /^0[1-9]/.test(digits);
  if (digits[0] === '0') return digits[1] !== '0' && lengths.every((n) => n >= 2 && n <= 8);
  // Without a trunk 0, only the North American form: (415) 555-0132, 415-555-0132, 1 415 555 0132.
  const north = lengths.length === 4 && groups[0]!.digits === '1' ? groups.slice(1) : groups;
  return (
    sameShape(
      north.map((g) => g.digits.length),
      [3, 3, 4],
    ) &&
    NANP.test(north[0]!.digits) &&
    NANP.test(north[1]!.digits) &&
    !north[1]!.paren &&
    !north[2]!.paren
  );
}

const sameShape = (lengths: readonly number[], shape: readonly number[]) =>
  lengths.length === shape.length && lengths.every((n, i) => n === shape[i]);
