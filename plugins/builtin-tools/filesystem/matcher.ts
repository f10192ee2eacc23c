import { basename, matchesGlob } from 'node:path';
import type { RegexPool } from './regex-pool.ts';

/** Finds the lines of a text that match. */
export interface TextMatcher {
  /** The 0-based numbers of matching lines, at most `max`; `file` names the text in errors. */
  match(text: string, max: number, file: string, signal?: AbortSignal): Promise<number[]>;
}

/**
 * A literal substring test, or a JavaScript regular expression run by the worker pool with a time
 * limit per file (see RegexPool). A leading `(?i)` (as in grep -P or ripgrep) is read as the `i`
 * flag, since models write it and JavaScript has no such syntax. A syntax error is reported at once.
 */
export function textMatcher(pattern: string, literal: boolean, pool: RegexPool): TextMatcher {
  if (literal) {
    return {
      match: async (text, max) => {
        const hits: number[] = [];
        const lines = text.split('\n');
        for (let i = 0; i < lines.length && hits.length < max; i++)
          if ((lines[i] ?? '').replace(/\r$/, '').includes(pattern)) hits.push(i);
        return hits;
      },
    };
  }
  const insensitive = pattern.startsWith('(?i)');
  const source = insensitive ? pattern.slice(4) : pattern;
  const flags = insensitive ? 'i' : '';
  try {
    new RegExp(source, flags);
  } catch (error) {
    throw new Error(
      `invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}; set literal: true to search for the text as written`,
    );
  }
  return {
    match: (text, max, file, signal) => pool.match({ source, flags, text, max, file }, signal),
  };
}

/**
 * Whether a file (its path relative to the searched folder) passes the glob. A glob without `/`
 * matches the file name at any depth (`*.ts`), as in ripgrep and .gitignore; one with `/`
 * matches the whole relative path (`src/**\/*.ts`).
 */
export function globMatcher(glob: string | undefined): (relativePath: string) => boolean {
  if (glob === undefined || glob === '') return () => true;
  if (!glob.includes('/')) return (path) => matchesGlob(basename(path), glob);
  return (path) => matchesGlob(path, glob);
}
