import { runInNewContext } from 'node:vm';
import { HubosError } from '../errors.ts';

/** The most characters one read returns: a read is a tool result, and must fit where the head did. */
export const MAX_READ_CHARS = 40_000;
/** What a read returns when no length is asked. */
export const DEFAULT_READ_CHARS = 8_000;
/** How long a search may run: a pattern that backtracks without end is cut here, not the process. */
export const SEARCH_TIMEOUT_MS = 500;
/** The most of one line a search shows around a match (a result may be one long line of JSON). */
const LINE_WINDOW = 300;

/** The line starts of `text`: offsets where each line begins (line 1 at 0). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/** The 1-based line holding offset `at` (a binary search over the line starts). */
function lineOf(starts: readonly number[], at: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= at) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

/** `length` characters from `offset`, with where they are in the whole. */
export function readChars(text: string, offset: number, length = DEFAULT_READ_CHARS): string {
  const start = Math.min(offset, text.length);
  const end = Math.min(start + Math.min(length, MAX_READ_CHARS), text.length);
  const more = end < text.length ? ` More from offset ${end}.` : ' That is the end.';
  return `[characters ${start}-${end} of ${text.length}.${more}]\n${text.slice(start, end)}`;
}

/** `count` lines from line `line` (1-based), cut at MAX_READ_CHARS. */
export function readLines(text: string, line: number, count = 200): string {
  const starts = lineStarts(text);
  const total = starts.length;
  if (line > total) return `[the result has ${total} lines: line ${line} is past its end]`;
  const start = starts[line - 1]!;
  const lastLine = Math.min(line + count - 1, total);
  const lineEnd = lastLine < total ? starts[lastLine]! - 1 : text.length;
  const end = Math.min(lineEnd, start + MAX_READ_CHARS);
  const cut = end < lineEnd ? ` Cut at ${MAX_READ_CHARS} characters: read on from offset ${end}.` : '';
  const more = lastLine < total ? ` More from line ${lastLine + 1}.` : ' That is the end.';
  return `[lines ${line}-${lastLine} of ${total}.${cut}${more}]\n${text.slice(start, end)}`;
}

export interface SearchOptions {
  /** A literal text, or a JavaScript regular expression's source when `regex`. */
  pattern: string;
  regex?: boolean;
  ignoreCase?: boolean;
  /** Lines shown before and after each matching line. */
  context?: number;
  maxMatches?: number;
}

/**
 * Where `pattern` matches in `text` (offset and length of each match, at most `max`): run in a
 * separate V8 context with a timeout, which stops even a regex that backtracks exponentially.
 */
function findMatches(text: string, source: string, flags: string, max: number): [number, number][] {
  const sandbox = { text, source, flags, max, found: [] as number[] };
  try {
    runInNewContext(
      `const re = new RegExp(source, flags);
       for (let m = re.exec(text); m !== null && found.length < max * 2; m = re.exec(text)) {
         found.push(m.index, m[0].length);
         if (m[0].length === 0) re.lastIndex++;
       }`,
      sandbox,
      { timeout: SEARCH_TIMEOUT_MS },
    );
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')
      throw new HubosError(
        'TOOL_INPUT_INVALID',
        `the search took over ${SEARCH_TIMEOUT_MS} ms and was stopped: search for a literal text, or a pattern that does not backtrack (no nested repetition such as (a+)+)`,
      );
    throw new HubosError(
      'TOOL_INPUT_INVALID',
      `"${source.slice(0, 100)}" is not a valid regular expression: ${(error as Error).message}`,
    );
  }
  const pairs: [number, number][] = [];
  for (let i = 0; i < sandbox.found.length; i += 2) pairs.push([sandbox.found[i]!, sandbox.found[i + 1]!]);
  return pairs;
}

/** A line as a search shows it: whole when short, else a window around the match. */
function shown(text: string, start: number, end: number, match?: number): string {
  if (end - start <= LINE_WINDOW * 2) return text.slice(start, end);
  const at = match ?? start;
  const from = Math.max(start, at - LINE_WINDOW);
  const to = Math.min(end, at + LINE_WINDOW);
  return `${from > start ? '…' : ''}${text.slice(from, to)}${to < end ? '…' : ''}`;
}

/** The matching lines of `text`, each with its line number, offset and `context` lines around it. */
export function searchText(text: string, options: SearchOptions): string {
  const max = options.maxMatches ?? 20;
  const context = options.context ?? 1;
  const source = options.regex ? options.pattern : options.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const matches = findMatches(text, source, `gm${options.ignoreCase ? 'i' : ''}`, max + 1);
  if (matches.length === 0) return `[no match for ${JSON.stringify(options.pattern)}]`;
  const starts = lineStarts(text);
  const endOf = (line: number) => (line < starts.length ? starts[line]! - 1 : text.length);
  const blocks: string[] = [];
  let shownUpTo = 0;
  // Its answer goes to the model whole (read_result's are never cut and kept): within MAX_READ_CHARS.
  let size = 0;
  let listed = 0;
  for (const [at] of matches.slice(0, max)) {
    const line = lineOf(starts, at);
    const first = Math.max(line - context, shownUpTo + 1);
    const last = Math.min(line + context, starts.length);
    const lines: string[] = [];
    for (let n = first; n <= last; n++) {
      const mark = n === line ? '>' : ' ';
      lines.push(`${n}${mark} ${shown(text, starts[n - 1]!, endOf(n), n === line ? at : undefined)}`);
    }
    const block = lines.length > 0 ? `[match at offset ${at}, line ${line}]\n${lines.join('\n')}` : '';
    if (listed > 0 && size + block.length > MAX_READ_CHARS) break;
    if (block) blocks.push(block);
    size += block.length + 1;
    listed++;
    shownUpTo = Math.max(shownUpTo, last);
  }
  const found = Math.min(matches.length, max);
  const more =
    listed < found
      ? ` Showing the first ${listed} (${MAX_READ_CHARS} characters at most): ask fewer context lines, narrow the pattern, or read on with offset or line.`
      : matches.length > max
        ? ` Showing the first ${max}: narrow the pattern, or read on with offset or line.`
        : '';
  return `[${found}${matches.length > max ? '+' : ''} matches for ${JSON.stringify(options.pattern)}.${more}]\n${blocks.join('\n')}`;
}
