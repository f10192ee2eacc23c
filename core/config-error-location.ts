import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage } from './errors.ts';

/** Where in which file a config (or a module it imports) went wrong. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/**
 * Where a config failed to load: for a syntax error, the file, line and column Node marks with a
 * caret (for a JavaScript module, whose import error carries no position, as `node --check` finds
 * it); for an error thrown while it ran, its first frame in the config's folder outside node_modules.
 */
export async function locateLoadError(
  error: unknown,
  configFile: string,
): Promise<SourceLocation | undefined> {
  const stack = error instanceof Error ? String(error.stack ?? '') : '';
  if (error instanceof SyntaxError || /SyntaxError/.test(stack.split('\n', 8).join('\n'))) {
    return caretLocation(stack) ?? (await checkedLocation(error, configFile));
  }
  return thrownAt(stack, configFile);
}

/** `file:line`, then the source with `^` under the column: how Node decorates a syntax error's stack. */
function caretLocation(text: string): SourceLocation | undefined {
  const lines = text.split('\n');
  const header = /^(.+?):(\d+)$/.exec(lines[0] ?? '');
  const caret = lines.findIndex((line, i) => i > 1 && /^\s*\^+\s*$/.test(line));
  if (!header || caret === -1) return undefined;
  const file = header[1]!.startsWith('file://') ? fileURLToPath(header[1]!) : header[1]!;
  if (!isAbsolute(file)) return undefined;
  return { file, line: Number(header[2]), column: lines[caret]!.indexOf('^') + 1 };
}

/**
 * A JavaScript module's syntax error as `node --check` reports it (its import error says only
 * what, not where): the config's, else that of the first of its local modules (followed through
 * their static imports) that does not parse. A JSON file named by the message is parsed instead.
 */
async function checkedLocation(error: unknown, configFile: string): Promise<SourceLocation | undefined> {
  const json = /^(\/.+?\.json): /.exec(errorMessage(error))?.[1];
  if (json) return jsonLocation(json);
  const { spawnSync } = await import('node:child_process');
  const seen = new Set<string>();
  const pending = [configFile];
  // A few files at most: this runs only when loading failed, and each check is a process.
  while (pending.length > 0 && seen.size < 20) {
    const file = pending.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    // `node --check` parses TypeScript as JavaScript; a TypeScript module's error has its caret anyway.
    if (/\.[cm]?ts$/.test(file)) {
      pending.push(...(await localImports(file)));
      continue;
    }
    const checked = spawnSync(process.execPath, ['--check', file], {
      encoding: 'utf8',
      timeout: 10_000,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    if (checked.status !== 0) return caretLocation(checked.stderr ?? '');
    pending.push(...(await localImports(file)));
  }
  return undefined;
}

/** The JavaScript files a module imports by a relative path (`./helpers.mjs`), as paths. */
async function localImports(file: string): Promise<string[]> {
  const { init, parse } = await import('es-module-lexer');
  await init;
  try {
    const [imports] = parse(readFileSync(file, 'utf8'));
    return imports
      .map((entry) => entry.n)
      .filter((name): name is string => typeof name === 'string' && /^\.\.?\/.*\.[cm]?js$/.test(name))
      .map((name) => resolve(dirname(file), name));
  } catch {
    return [];
  }
}

/**
 * Where a JSON file's syntax error is: JSON.parse says what but not where, and JSON is nearly a
 * JavaScript expression, whose parser marks the spot (compiled, never run). None when the text
 * is a valid expression though not valid JSON (a trailing comma, a comment).
 */
async function jsonLocation(file: string): Promise<SourceLocation | undefined> {
  const { Script } = await import('node:vm');
  try {
    new Script(`(${readFileSync(file, 'utf8')}\n)`, { filename: file });
    return undefined;
  } catch (error) {
    const at = caretLocation(String((error as Error).stack ?? ''));
    // The "(" added before the first line moves its columns by one.
    return at && { ...at, column: at.line === 1 ? Math.max(1, at.column - 1) : at.column };
  }
}

/** The first frame of a thrown error in the config's folder (the config or its own modules). */
function thrownAt(stack: string, configFile: string): SourceLocation | undefined {
  const folder = dirname(configFile) + sep;
  for (const match of stack.matchAll(/\(?((?:file:\/\/)?\/[^\s()]+):(\d+):(\d+)\)?$/gm)) {
    const file = match[1]!.startsWith('file://') ? fileURLToPath(match[1]!) : match[1]!;
    if (file.startsWith(folder) && !file.includes('/node_modules/'))
      return { file, line: Number(match[2]), column: Number(match[3]) };
  }
  return undefined;
}

/**
 * The line with a caret under the column, and the line before it for context, as a code frame
 * shows it: control characters are dropped and long lines cut, so the file's text cannot move the
 * terminal's cursor or fill the screen. Empty when the file cannot be read.
 */
export function codeFrame(location: SourceLocation): string {
  let source: string[];
  try {
    source = readFileSync(location.file, 'utf8').split(/\r?\n/);
  } catch {
    return '';
  }
  const width = String(location.line).length;
  const shown = (n: number) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
    const text = (source[n - 1] ?? '').replace(/\t/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
    return `  ${String(n).padStart(width)} | ${text.length > 160 ? `${text.slice(0, 159)}…` : text}`;
  };
  const frame: string[] = [];
  if (location.line > 1) frame.push(shown(location.line - 1));
  frame.push(shown(location.line));
  frame.push(`  ${' '.repeat(width)} | ${' '.repeat(Math.min(location.column - 1, 159))}^`);
  return frame.join('\n');
}
