// The package's entries export only public API: no name tagged `@internal` where it is declared.
// What the built-in plugins use beyond it lives in core/internal.ts, which is not an entry.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENTRIES } from '../../scripts/bundle.ts';
import { markdownFiles, parseMarkdown, read, shown } from '../docs/markdown.ts';
import { ROOT } from '../helpers/run.ts';

const INTERNAL_MODULE = 'core/internal.ts';

/** The source of each entry of package.json `exports` (their dist/*.js, mapped back as the bundle maps them). */
function exportedSources(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { default: string }>;
  };
  const sources: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.default;
    const name = /^\.\/dist\/(.+)\.js$/.exec(file)?.[1];
    if (name === undefined) continue;
    const source = ENTRIES[name as keyof typeof ENTRIES];
    if (source === undefined)
      throw new Error(`package.json exports "${subpath}" has no source in the bundle`);
    sources[subpath] = source;
  }
  return sources;
}

let checker: ts.TypeChecker;
let program: ts.Program;

beforeAll(() => {
  const configFile = join(ROOT, 'tsconfig.json');
  const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, ROOT, undefined, configFile);
  const roots = [...Object.values(exportedSources()), INTERNAL_MODULE].map((file) => join(ROOT, file));
  program = ts.createProgram(roots, { ...parsed.options, noEmit: true });
  checker = program.getTypeChecker();
}, 120_000);

/** Each name the module exports, and whether its declaration is tagged `@internal`. */
function exportsOf(file: string): { name: string; internal: boolean }[] {
  const source = program.getSourceFile(join(ROOT, file));
  if (!source) throw new Error(`${file} is not in the program`);
  const module = checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${file} is not a module`);
  return checker.getExportsOfModule(module).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const internal = (target.declarations ?? []).some((declaration) =>
      ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === 'internal'),
    );
    return { name: symbol.name, internal };
  });
}

describe('the public entries', () => {
  it.each(Object.entries(exportedSources()))('%s (%s) exports no @internal name', (_subpath, file) => {
    const names = exportsOf(file);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((entry) => entry.internal).map((entry) => entry.name)).toEqual([]);
  });

  it('core/internal.ts holds only @internal names, and no entry of the package is it', () => {
    const names = exportsOf(INTERNAL_MODULE);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((entry) => !entry.internal).map((entry) => entry.name)).toEqual([]);
    expect(Object.values(exportedSources())).not.toContain(INTERNAL_MODULE);
  });
});

// Every `import { ... } from 'hubos…'` of the docs' code blocks (partial ones and every language
// too, which the code-block check does not compile) names something its entry exports.
describe('what the docs import', () => {
  const IMPORT = /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'(hubos(?:\/[a-z]+)?)'/g;
  const imports = markdownFiles().flatMap((file) =>
    parseMarkdown(file, read(file)).blocks.flatMap((block) =>
      [...block.code.matchAll(IMPORT)].flatMap(([, names = '', entry = '']) =>
        names
          .split(',')
          .map(
            (name) =>
              name
                .trim()
                .replace(/^type\s+/, '')
                .split(/\s+as\s+/)[0]!,
          )
          .filter((name) => name !== '' && name !== '...' && name !== '…')
          .map((name) => ({ where: `${shown(file)}:${block.line}`, entry, name })),
      ),
    ),
  );

  it('finds the imports of the docs', () => {
    expect(imports.length).toBeGreaterThan(20);
  });

  it('every imported name is exported by its entry', () => {
    const sources = exportedSources();
    const exported = new Map(
      Object.entries(sources).map(([subpath, file]) => [
        subpath === '.' ? 'hubos' : `hubos/${subpath.slice(2)}`,
        new Set(exportsOf(file).map((entry) => entry.name)),
      ]),
    );
    const missing = imports.filter(({ entry, name }) => !exported.get(entry)?.has(name));
    expect(missing.map(({ where, entry, name }) => `${where}: ${name} from '${entry}'`)).toEqual([]);
  });
});
