// The TypeScript blocks of README.md and docs/, with what their fences say about them. Fence words
// after ```ts (see docs/contributing.md):
// - partial: a deliberate fragment; neither compiled nor run.
// - file=<path>: the block is that file of the app (other blocks of the page import it by it).
// - run=<how>: the block runs in a fresh app, as written: validate (`hubos validate --config
//   <file>`), node (`node <file>`), node-test (`node --test <file>`), vitest (`vitest run <file>`),
//   or plugin (a config loads the plugin the block exports and `hubos plugins` lists its taps;
//   export=<name>[,<name>...] for named exports, else the default one).
// - expect="<regex>": what the run's output must match (required for run=node and run=plugin).
// - norun="<why>": compiled but not run, and why (a real model, the network, a server to talk to).
// Every block that is not partial says run= or norun=.
import { join } from 'node:path';
import { type CodeBlock, markdownFiles, parseMarkdown, read, shown } from './markdown.ts';

export const RUN_KINDS = ['validate', 'node', 'node-test', 'vitest', 'plugin'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export interface Snippet {
  block: CodeBlock;
  /** `README.md:82` */
  name: string;
  partial: boolean;
  /** The block's path inside its page's folder (`weather.ts`, `L82.ts`). */
  file: string;
  /** The page's folder name (`README`, `docs__guide__testing`). */
  page: string;
  run?: RunKind;
  /** run=plugin: the exports that are plugins or their factories, comma-separated (default: `default`). */
  exportName?: string;
  expect?: RegExp;
  norun?: string;
  /** What is wrong with the fence's words, if anything. */
  problem?: string;
}

const CHECKED_LANGS = new Set(['ts', 'typescript']);

const pageFolder = (file: string) => shown(file).replace(/\.md$/, '').replaceAll('/', '__');

function metaValue(block: CodeBlock, key: string): string | undefined {
  return block.meta.find((word) => word.startsWith(`${key}=`))?.slice(key.length + 1);
}

function snippetOf(block: CodeBlock): Snippet {
  const name = `${shown(block.file)}:${block.line}`;
  const file = metaValue(block, 'file') ?? `L${block.line}.ts`;
  const run = metaValue(block, 'run');
  const expected = metaValue(block, 'expect');
  const snippet: Snippet = {
    block,
    name,
    partial: block.meta.includes('partial'),
    file,
    page: pageFolder(block.file),
    ...(expected !== undefined ? { expect: new RegExp(expected, 'm') } : {}),
    ...(metaValue(block, 'export') !== undefined ? { exportName: metaValue(block, 'export') } : {}),
    ...(metaValue(block, 'norun') !== undefined ? { norun: metaValue(block, 'norun') } : {}),
  };
  if (file.startsWith('/') || file.split('/').includes('..'))
    snippet.problem = 'file= must be a relative path inside the page’s folder';
  else if (run !== undefined && !(RUN_KINDS as readonly string[]).includes(run))
    snippet.problem = `run=${run}: say one of ${RUN_KINDS.join(', ')}`;
  else if (run !== undefined) snippet.run = run as RunKind;
  if (snippet.partial) return snippet;
  if (snippet.run === undefined && snippet.norun === undefined && !snippet.problem)
    snippet.problem = `say how it runs (run=${RUN_KINDS.join('|')}) or why it does not (norun="...")`;
  if (snippet.run !== undefined && snippet.norun !== undefined) snippet.problem = 'run= and norun= both';
  if ((snippet.run === 'node' || snippet.run === 'plugin') && !snippet.expect)
    snippet.problem = `run=${snippet.run} needs expect="<regex>": what the run prints`;
  if (snippet.run === 'vitest' && !/\.test\.[cm]?ts$/.test(snippet.file))
    snippet.problem = 'run=vitest needs file=<name>.test.ts: vitest runs only test files';
  return snippet;
}

/** Every TypeScript block of the docs. */
export function snippets(): Snippet[] {
  return markdownFiles().flatMap((file) =>
    parseMarkdown(file, read(file))
      .blocks.filter((block) => CHECKED_LANGS.has(block.lang))
      .map(snippetOf),
  );
}

/** Where a snippet is written under a folder holding one subfolder per page. */
export const snippetPath = (root: string, snippet: Snippet): string => join(root, snippet.page, snippet.file);

/** The npm packages a block imports (`zod`, `@ai-sdk/openai-compatible`), hubos and Node's own aside. */
export function packagesImported(code: string): string[] {
  const found = new Set<string>();
  for (const [, specifier = ''] of code.matchAll(/(?:from|import)\s*\(?\s*'([^'.][^']*)'/g)) {
    if (specifier.startsWith('node:')) continue;
    const parts = specifier.split('/');
    const pkg = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? '');
    if (pkg !== 'hubos') found.add(pkg);
  }
  return [...found];
}

/** The packages the `npm install` lines of a page name (`npm install -D vitest zod@4`: vitest, zod). */
export function packagesInstalled(page: string): Set<string> {
  const named = new Set<string>();
  for (const [, args = ''] of page.matchAll(/npm (?:install|i)\b([^\n`]*)/g))
    for (const word of args.trim().split(/\s+/)) {
      if (word === '' || word.startsWith('-')) continue;
      const at = word.indexOf('@', 1);
      const pkg = word.replace(/[),.;:]+$/, '');
      named.add(at === -1 ? pkg : pkg.slice(0, at));
    }
  return named;
}
