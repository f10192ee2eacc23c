// The default import: a named one would stop `hubos` from loading on a Node.js without it.
import nodeModule from 'node:module';

/**
 * An app's own `.ts`/`.js` files (the config and the local plugins it names) load as the ES modules
 * they are written as, whatever the app's package.json says: `npm init -y` writes
 * `"type": "commonjs"`, which would make Node read `import … from 'hubos'` as CommonJS and fail.
 * A file with `import`/`export` statements that Node would load as CommonJS loads as ESM instead;
 * CommonJS files, `.cjs`/`.cts`/`.mjs`/`.mts` files and everything under node_modules load as before.
 */
export function loadAppModulesAsWritten(): void {
  if (registered) return;
  registered = true;
  nodeModule.registerHooks({
    load(url, context, nextLoad) {
      const loaded = nextLoad(url, context);
      if (loaded.format !== 'commonjs' && loaded.format !== 'commonjs-typescript') return loaded;
      if (!url.startsWith('file:') || url.includes('/node_modules/') || !/\.[jt]s$/.test(url)) return loaded;
      if (loaded.source == null || !ESM_SYNTAX.test(String(loaded.source))) return loaded;
      return { ...loaded, format: loaded.format === 'commonjs' ? 'module' : 'module-typescript' };
    },
  });
}

let registered = false;

/** An `import`/`export` statement at the start of a line, or `import.meta`: only ES modules have them. */
const ESM_SYNTAX =
  /^[ \t]*(?:import[ \t]*(?:[\w*{'"]|type[ \t])|export[ \t]*(?:[{*]|(?:default|const|let|var|function|async|class|type|interface|enum|declare|abstract)\b))|\bimport\.meta\b/m;
