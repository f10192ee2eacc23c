// Every ```ts / ```typescript block of README.md and docs/ compiles against the package's types.
//
// Each block is written to a temporary folder as a module of its own and all of them are compiled
// in one TypeScript program, with tsconfig.json's options and 'hubos', 'hubos/plugins',
// 'hubos/testing' and 'hubos/server' mapped to the sources. Conventions (see docs/contributing.md):
// - ```ts partial: a deliberately partial block; it is not checked.
// - ```ts file=src/index.ts: the block is that file, so other blocks of the same page can import
//   it by a relative path ('../src/index.ts').
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodeBlock, markdownFiles, parseMarkdown, ROOT, read, shown } from './markdown.ts';

const CHECKED_LANGS = new Set(['ts', 'typescript']);

/** Module names the docs import, mapped as tsconfig.json and vitest.config.ts map them in the repo. */
const PATHS: Record<string, string[]> = {
  hubos: ['core/index.ts'],
  'hubos/plugins': ['plugins/index.ts'],
  'hubos/testing': ['testing/index.ts'],
  'hubos/server': ['plugins/hubos/server.ts'],
  // The third-party plugin package the docs use as their example (a fixture of the test suite).
  'hubos-plugin-clock': ['test/fixtures/packages/hubos-plugin-clock/index.d.ts'],
};

interface Case {
  block: CodeBlock;
  /** `README.md:82` */
  name: string;
  partial: boolean;
  /** Where the block is written. */
  path: string;
}

const blocks = markdownFiles().flatMap((file) =>
  parseMarkdown(file, read(file)).blocks.filter((block) => CHECKED_LANGS.has(block.lang)),
);

// Under node_modules/ so the blocks resolve the repo's dependencies (vitest, the MCP SDK, ...) as a
// user's code would, and so neither Biome nor vitest ever picks a file up from there.
const dir = mkdtempSync(join(ROOT, 'node_modules', '.cache-docs-blocks-'));
const pageFolder = (file: string) => shown(file).replace(/\.md$/, '').replaceAll('/', '__');

const cases: Case[] = blocks.map((block) => {
  const fileMeta = block.meta.find((word) => word.startsWith('file='))?.slice('file='.length);
  if (fileMeta !== undefined && (fileMeta.startsWith('/') || fileMeta.split('/').includes('..')))
    throw new Error(
      `${shown(block.file)}:${block.line}: file= must be a relative path inside the page's folder`,
    );
  return {
    block,
    name: `${shown(block.file)}:${block.line}`,
    partial: block.meta.includes('partial'),
    path: join(dir, pageFolder(block.file), fileMeta ?? `L${block.line}.ts`),
  };
});

let diagnostics = new Map<string, string[]>();

beforeAll(() => {
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const seen = new Map<string, string>();
  for (const c of cases.filter((c) => !c.partial)) {
    const taken = seen.get(c.path);
    if (taken) throw new Error(`${c.name}: same file= as ${taken}`);
    seen.set(c.path, c.name);
    mkdirSync(dirname(c.path), { recursive: true });
    writeFileSync(c.path, c.block.code);
  }

  const configFile = join(ROOT, 'tsconfig.json');
  const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, ROOT, undefined, configFile);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    // A block without import or export is still a module of its own.
    moduleDetection: ts.ModuleDetectionKind.Force,
    paths: Object.fromEntries(
      Object.entries(PATHS).map(([name, targets]) => [name, targets.map((t) => join(ROOT, t))]),
    ),
  };
  const program = ts.createProgram({ rootNames: [...seen.keys()], options });
  const host: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => ROOT,
    getNewLine: () => '\n',
  };
  diagnostics = new Map();
  const byPath = new Map(cases.map((c) => [c.path, c]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const where = diagnostic.file ? byPath.get(diagnostic.file.fileName) : undefined;
    if (!diagnostic.file) {
      diagnostics.set('', [...(diagnostics.get('') ?? []), ts.formatDiagnostic(diagnostic, host)]);
    } else if (where) {
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const mdLine = where.block.line + 1 + line;
      const message = `${shown(where.block.file)}:${mdLine}: in the ts block at line ${where.block.line}: TS${diagnostic.code}: ${text}`;
      diagnostics.set(where.path, [...(diagnostics.get(where.path) ?? []), message]);
    }
  }
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('TypeScript blocks of README.md and docs/', () => {
  it('finds the blocks, and the compiler accepts its options', () => {
    expect(cases.length).toBeGreaterThan(20);
    expect(diagnostics.get('') ?? []).toEqual([]);
  });

  // A block marked `ts partial` is a deliberate fragment: it gets no test, and is named here.
  it('names the blocks marked partial, which are not compiled', () => {
    const partial = cases.filter((c) => c.partial).map((c) => c.name);
    expect(partial.length, `partial blocks: ${partial.join(', ') || 'none'}`).toBeLessThan(cases.length);
  });

  for (const c of cases.filter((block) => !block.partial)) {
    const title = `${c.name} compiles`;
    it(title, () => {
      const errors = diagnostics.get(c.path) ?? [];
      if (errors.length > 0) expect.fail(`\n${errors.join('\n')}`);
    });
  }
});
