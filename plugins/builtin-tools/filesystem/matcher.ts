import { basename, matchesGlob } from 'node:path';

/** Tests one line of text. */
export type LineMatcher = (line: string) => boolean;

/**
 * A literal substring test or a JavaScript regular expression. A leading `(?i)` (as in grep -P
 * or ripgrep) is read as the `i` flag, since models write it and JavaScript has no such syntax.
 */
export function lineMatcher(pattern: string, literal: boolean): LineMatcher {
  if (literal) return (line) => line.includes(pattern);
  const insensitive = pattern.startsWith('(?i)');
  let regex: RegExp;
  try {
    regex = new RegExp(insensitive ? pattern.slice(4) : pattern, insensitive ? 'i' : '');
  } catch (error) {
    throw new Error(
      `invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}; set literal: true to search for the text as written`,
    );
  }
  return (line) => regex.test(line);
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
