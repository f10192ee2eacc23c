// The default import: a named one would stop `hubos` from loading on a Node.js without it.
import { existsSync, readFileSync } from 'node:fs';
import nodeModule from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * An app's own `.ts`/`.js` files (the config and the local plugins it names) load as the ES modules
 * they are written as, whatever the app's package.json says: `npm init -y` writes
 * `"type": "commonjs"`, which would make Node read `import … from 'hubos'` as CommonJS and fail.
 * A file Node would load as CommonJS that has static `import`/`export` statements or `import.meta`
 * (found by a real lexer, so comments, strings and template literals do not count) loads as ESM
 * instead; CommonJS files, `.cjs`/`.cts`/`.mjs`/`.mts` files and everything under node_modules
 * load as before.
 */
export function loadAppModulesAsWritten(file: string): void {
  if (registered || loadsAsModules(file)) return;
  registered = true;
  nodeModule.registerHooks({
    load(url, context, nextLoad) {
      const loaded = nextLoad(url, context);
      if (loaded.format !== 'commonjs' && loaded.format !== 'commonjs-typescript') return loaded;
      if (!url.startsWith('file:') || url.includes('/node_modules/') || !/\.[jt]s$/.test(url)) return loaded;
      if (loaded.source == null || !hasModuleSyntax(String(loaded.source))) return loaded;
      return { ...loaded, format: loaded.format === 'commonjs' ? 'module' : 'module-typescript' };
    },
  });
}

let registered = false;

/**
 * Whether `file` (a path or file: URL) and the app files beside it load as ES modules without help:
 * under node_modules the hook changes nothing, and a package that says `"type": "module"` is ESM
 * throughout. Then no hook is registered, since a load hook makes every later module load slower.
 * @internal
 */
export function loadsAsModules(file: string): boolean {
  const path = file.startsWith('file:') ? fileURLToPath(file) : file;
  if (path.split(sep).includes('node_modules')) return true;
  // The nearest package.json decides, as it does for Node.
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        return JSON.parse(readFileSync(manifest, 'utf8')).type === 'module';
      } catch {
        return false; // unreadable: the hook decides file by file, as before
      }
    }
    if (dirname(dir) === dir) return false;
  }
}

/** Whether a source has ES module syntax: a static import (not `import type`), an export, or import.meta. @internal */
export function hasModuleSyntax(source: string): boolean {
  const { initSync, parse } = lexer();
  initSync(); // once: the lexer's WebAssembly
  const code = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  let imports: ReturnType<typeof parse>[0];
  let exports: ReturnType<typeof parse>[1];
  try {
    [imports, exports] = parse(code);
  } catch {
    return false; // not lexable as JavaScript: let Node load it as it would, and say what is wrong
  }
  if (exports.length > 0) return true;
  return imports.some(
    (entry) =>
      entry.d === -2 || (entry.d === -1 && !/^import\s+type[\s{]/.test(code.slice(entry.ss, entry.se))),
  );
}

let loadedLexer: typeof import('es-module-lexer') | undefined;

/**
 * es-module-lexer, loaded when a file is first looked at (most apps say "type": "module" and never
 * need it); required, since a load hook runs synchronously.
 */
function lexer(): typeof import('es-module-lexer') {
  loadedLexer ??= nodeModule.createRequire(import.meta.url)(
    'es-module-lexer',
  ) as typeof import('es-module-lexer');
  return loadedLexer;
}
