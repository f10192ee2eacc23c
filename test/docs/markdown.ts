// Reads the docs' markdown for the docs tests: which files, their fenced code blocks, their
// links and their headings' anchors.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DOCS = join(ROOT, 'docs');

/** README.md and every markdown file under docs/ (the VitePress folders excepted), as absolute paths. */
export function markdownFiles(): string[] {
  const found = [join(ROOT, 'README.md')];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) found.push(path);
    }
  };
  walk(DOCS);
  return found;
}

/** A path relative to the repository, for messages. */
export const shown = (path: string): string => relative(ROOT, path);

export interface CodeBlock {
  /** The markdown file. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's language, lowercased (`ts`, `sh`, ...; '' for none). */
  lang: string;
  /** The words after the language (`partial`, `file=src/index.ts`, `expect="a b"` as `expect=a b`, ...). */
  meta: string[];
  /** The block's text, without the fence's indentation. */
  code: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`{]*)\s*(.*)$/;

/** The fenced code blocks of a markdown text, and the lines that are outside every block. */
export function parseMarkdown(file: string, text: string): { blocks: CodeBlock[]; prose: (string | null)[] } {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  // Outside a block: the line; inside one (fences included): null.
  const prose: (string | null)[] = [];
  let open: {
    indent: number;
    fence: string;
    line: number;
    lang: string;
    meta: string[];
    body: string[];
  } | null = null;
  lines.forEach((line, index) => {
    if (open) {
      const close = line.trim();
      if (close.startsWith(open.fence) && /^[`~]+$/.test(close) && close[0] === open.fence[0]) {
        blocks.push({
          file,
          line: open.line,
          lang: open.lang,
          meta: open.meta,
          code: `${open.body.join('\n')}\n`,
        });
        open = null;
      } else {
        const indent = open.indent;
        open.body.push(line.slice(Math.min(indent, line.length - line.trimStart().length)));
      }
      prose.push(null);
      return;
    }
    const match = FENCE.exec(line);
    if (match) {
      const [, indent = '', fence = '', lang = '', rest = ''] = match;
      open = {
        indent: indent.length,
        fence,
        line: index + 1,
        lang: lang.toLowerCase(),
        meta: metaWords(rest),
        body: [],
      };
      prose.push(null);
      return;
    }
    prose.push(line);
  });
  if (open !== null) {
    const { line } = open;
    throw new Error(`${shown(file)}:${line}: a code fence is never closed`);
  }
  return { blocks, prose };
}

/** The words after a fence's language; a value may be quoted to hold spaces: `expect="It is .*"`. */
function metaWords(rest: string): string[] {
  return [...rest.matchAll(/(?:[^\s"]+|"[^"]*")+/g)].map(([word]) => word.replace(/"([^"]*)"/g, '$1'));
}

/** The anchor VitePress gives a heading (@mdit-vue/shared's slugify). */
export function vitepressSlug(heading: string): string {
  return (
    heading
      .normalize('NFKD')
      .replace(/[\u0300-\u036F]/g, '')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it drops.
      .replace(/[\u0000-\u001f]/g, '')
      .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^-+|-+$/g, '')
      .replace(/^(\d)/, '_$1')
      .toLowerCase()
  );
}

/** The anchor GitHub gives a heading: lowercased, punctuation dropped, spaces made '-'. */
export function githubSlug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The text of a heading as it reads (inline code, links and emphasis reduced to their text). */
function headingText(raw: string): string {
  return raw
    .replace(/\s*\{#[^}]+\}\s*$/, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim();
}

/** Every anchor a markdown file's headings give, under VitePress's and GitHub's rules alike. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const add = (slug: string) => {
    // A repeated heading gets -1, -2, ... after it, on both sites.
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  };
  for (const line of parseMarkdown('', text).prose) {
    const match = line === null ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!match?.[1]) continue;
    const custom = /\{#([^}]+)\}\s*$/.exec(match[1]);
    if (custom?.[1]) anchors.add(custom[1]);
    const heading = headingText(match[1]);
    add(vitepressSlug(heading));
    const github = githubSlug(heading);
    if (github !== vitepressSlug(heading)) add(github);
  }
  return anchors;
}

export function read(path: string): string {
  return readFileSync(path, 'utf8');
}
