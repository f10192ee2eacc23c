// The default import: a named one would stop `hubos` from loading on a Node.js without it.
import nodeModule from 'node:module';

/**
 * An app's own `.ts`/`.js` files (the config and the local plugins it names) load as the ES modules
 * they are written as, whatever the app's package.json says: `npm init -y` writes
 * `"type": "commonjs"`, which would make Node read `import … from 'hubos'` as CommonJS and fail.
 * A file Node would load as CommonJS that has static `import`/`export` statements or `import.meta`
 * (found by a real lexer, so comments, strings and template literals do not count) loads as ESM
 * instead; CommonJS files, `.cjs`/`.cts`/`.mjs`/`.mts` files and everything under node_modules
 * load as before.
 */
export function loadAppModulesAsWritten(): void {
  if (hook) return;
  hook = nodeModule.registerHooks({
    load(url, context, nextLoad) {
      const loaded = nextLoad(url, context);
      if (loaded.format !== 'commonjs' && loaded.format !== 'commonjs-typescript') return loaded;
      if (!url.startsWith('file:') || url.includes('/node_modules/') || !/\.[jt]s$/.test(url)) return loaded;
      sawCommonJs = true;
      if (loaded.source == null || !hasModuleSyntax(String(loaded.source))) return loaded;
      return { ...loaded, format: loaded.format === 'commonjs' ? 'module' : 'module-typescript' };
    },
  });
}

let hook: { deregister(): void } | undefined;
/** Whether Node took one of the app's `.js`/`.ts` files for CommonJS since the hook was registered. */
let sawCommonJs = false;

/**
 * Once the app's config and plugins have loaded (the `hubos` command calls it when the kernel has
 * booted): when Node took none of their files for CommonJS, the app's packages are ES modules and
 * the hook goes, since it makes every later module load slower (the first run's undici among
 * them). A file the app loads later from a `"type": "commonjs"` folder that none of its files at
 * start came from then loads as Node reads it. @internal
 */
export function settleAppModules(): void {
  if (!hook || sawCommonJs) return;
  hook.deregister();
  hook = undefined;
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
