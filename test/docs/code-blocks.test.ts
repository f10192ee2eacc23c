// Every ```ts / ```typescript block of README.md and docs/ compiles against the package's types.
//
// Each block is written to a temporary folder as a module of its own and all of them are compiled
// in one TypeScript program, with tsconfig.json's options and 'hubos', 'hubos/plugins',
// 'hubos/testing' and 'hubos/server' mapped to the sources. Each page's folder also holds the
// local plugin `hubos init` writes (plugins/dice.ts), which blocks may import as an app would.
// The fence's words (see snippets.ts and docs/contributing.md) say which block is partial, which
// file it is, and how it runs: snippet-runs.test.ts runs those in an app made from the package.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appFiles } from '../../bin/templates/app.ts';
import { ROOT, read, shown } from './markdown.ts';
import { packagesImported, packagesInstalled, type Snippet, snippetPath, snippets } from './snippets.ts';

/** Module names the docs import, mapped as tsconfig.json and vitest.config.ts map them in the repo. */
const PATHS: Record<string, string[]> = {
  hubos: ['core/index.ts'],
  'hubos/plugins': ['plugins/index.ts'],
  'hubos/testing': ['testing/index.ts'],
  'hubos/server': ['plugins/hubos/server.ts'],
};

/** The files of the `hubos init` app that blocks may import. */
const APP_FILES = Object.fromEntries(
  Object.entries(appFiles('.ts')).filter(([path]) => path.startsWith('plugins/')),
);

const cases: (Snippet & { path: string })[] = snippets().map((snippet) => ({
  ...snippet,
  path: '',
}));

// Under node_modules/ so the blocks resolve the repo's dependencies (vitest, the MCP SDK, ...) as a
// user's code would, and so neither Biome nor vitest ever picks a file up from there.
const dir = mkdtempSync(join(ROOT, 'node_modules', '.cache-docs-blocks-'));
for (const c of cases) c.path = snippetPath(dir, c);

let diagnostics = new Map<string, string[]>();

beforeAll(() => {
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const seen = new Map<string, string>();
  for (const page of new Set(cases.map((c) => c.page)))
    for (const [path, content] of Object.entries(APP_FILES)) {
      mkdirSync(dirname(join(dir, page, path)), { recursive: true });
      writeFileSync(join(dir, page, path), content);
    }
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

  // Each block says how it runs (run=) or why it does not (norun=), so none is left untried by accident.
  it('says of every block how it runs, or why it does not', () => {
    const problems = cases.filter((c) => c.problem).map((c) => `${c.name}: ${c.problem}`);
    expect(problems).toEqual([]);
  });

  // A reader copies the npm install line with the block: every package it imports is named in one.
  it('names every package a block imports in an npm install line of its page', () => {
    const missing = cases
      .filter((c) => !c.partial)
      .flatMap((c) => {
        const named = packagesInstalled(read(c.block.file));
        return packagesImported(c.block.code)
          .filter((pkg) => !named.has(pkg))
          .map(
            (pkg) => `${c.name}: imports ${pkg}, but no "npm install ... ${pkg}" line of its page names it`,
          );
      });
    expect(missing).toEqual([]);
  });

  for (const c of cases.filter((block) => !block.partial)) {
    const title = `${c.name} compiles`;
    it(title, () => {
      const errors = diagnostics.get(c.path) ?? [];
      if (errors.length > 0) expect.fail(`\n${errors.join('\n')}`);
    });
  }
});
