/** One group of digits in a run: `415`, or `(415)` in parentheses. */
export interface DigitGroup {
  digits: string;
  start: number;
  end: number;
  paren: boolean;
  /** The separator before it: ' ', '-', '.', or '' (the first group, or one next to a parenthesis). */
  separator: string;
}

/** Digits written as one number: `+44 (0)20 7946 0958`, `4111-1111-1111-1111`, `2024-01-15`. */
export interface NumberRun {
  plus: boolean;
  start: number;
  end: number;
  groups: DigitGroup[];
}

const SEPARATORS = new Set([' ', '-', '.', '\u00a0']);
const isDigit = (char: string | undefined) => char !== undefined && char >= '0' && char <= '9';
const WORD = /[\p{L}\p{N}_]/u;
const isWordChar = (char: string | undefined) => {
  if (char === undefined) return false;
  const code = char.charCodeAt(0);
  if (code < 128)
    return (
      (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
    );
  return WORD.test(char);
};
/** A run right after one of these is part of something else: `v1.2.3`, `id-4155550132`, `a/2024-01-15`. */
const NOT_BEFORE = new Set(['.', '-', '+', '/', '_', '\\']);

/**
 * Every run of digit groups in `text`, each group separated by one space, hyphen or dot, or written
 * in parentheses; a run glued to a word or to another number's punctuation is not one. Each
 * character is looked at a bounded number of times: the scan is linear in the text.
 */
export function numberRuns(text: string): NumberRun[] {
  const runs: NumberRun[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    const opens = isDigit(char) || ((char === '+' || char === '(') && isDigit(text[i + 1]));
    if (!opens) {
      i++;
      continue;
    }
    const before = text[i - 1];
    if (isWordChar(before) || (before !== undefined && NOT_BEFORE.has(before))) {
      i = skipWord(text, i);
      continue;
    }
    const run = readRun(text, i);
    const after = text[run.end];
    if (run.groups.length > 0 && !isWordChar(after)) runs.push(run);
    i = Math.max(run.end, i + 1);
    if (isWordChar(after)) i = skipWord(text, i);
  }
  return runs;
}

function skipWord(text: string, from: number): number {
  let i = from + 1;
  while (i < text.length && (isWordChar(text[i]) || text[i] === '.' || text[i] === '-')) i++;
  return i;
}

function readRun(text: string, start: number): NumberRun {
  const run: NumberRun = { plus: text[start] === '+', start, end: start, groups: [] };
  let i = run.plus ? start + 1 : start;
  let separator = '';
  for (;;) {
    const group = readGroup(text, i, separator);
    if (!group) break;
    run.groups.push(group);
    run.end = group.end;
    i = group.end;
    const next = text[i];
    if (next !== undefined && SEPARATORS.has(next) && (isDigit(text[i + 1]) || text[i + 1] === '(')) {
      separator = next === '\u00a0' ? ' ' : next;
      i++;
    } else if (next === '(' || (group.paren && isDigit(next))) {
      separator = '';
    } else break;
  }
  return run;
}

function readGroup(text: string, i: number, separator: string): DigitGroup | undefined {
  const paren = text[i] === '(';
  let end = paren ? i + 1 : i;
  while (isDigit(text[end])) end++;
  if (end === (paren ? i + 1 : i)) return undefined;
  if (paren) {
    if (text[end] !== ')') return undefined;
    return { digits: text.slice(i + 1, end), start: i, end: end + 1, paren, separator };
  }
  return { digits: text.slice(i, end), start: i, end, paren, separator };
}
