/**
 * Bundles HubOS's sources into the package's entries (`hubos`, `hubos/plugins`, `hubos/server`,
 * `hubos/testing`, the `hubos` command) and the chunks they share, in dist/, with source maps;
 * `tsc --emitDeclarationOnly` writes the type declarations beside them. What a module loads on
 * demand (a command, a plugin a config does not use, an SDK) stays a chunk of its own, loaded on
 * demand. One chunk instead of a few hundred files is about a tenth of `hubos serve`'s cold start
 * and 6 MB of its memory: each module Node loads costs a lookup, a read and a compile of its own.
 * Dependencies stay imports of their packages, as npm installs them.
 *
 * `node scripts/bundle.ts [outDir]` (default dist/).
 */
import { isBuiltin } from 'node:module';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Entry name (its path in dist/, without .js) → source. package.json's exports and bin point at these. */
export const ENTRIES = {
  'core/index': 'core/index.ts',
  'plugins/index': 'plugins/index.ts',
  'plugins/hubos/server': 'plugins/hubos/server.ts',
  'testing/index': 'testing/index.ts',
  'bin/hubos': 'bin/hubos.ts',
};

export async function bundle(outDir = join(root, 'dist')): Promise<void> {
  const build = await rolldown({
    input: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, join(root, file)])),
    platform: 'node',
    // Packages are the installer's business, builtins Node's: only our own files go in.
    external: (id) => isBuiltin(id) || !(id.startsWith('.') || isAbsolute(id)),
    // Our modules' order of evaluation is kept as written: node-check.ts must run first.
    treeshake: { moduleSideEffects: true },
  });
  try {
    await build.write({
      dir: outDir,
      format: 'esm',
      entryFileNames: '[name].js',
      chunkFileNames: 'chunks/[name]-[hash].js',
      sourcemap: true,
    });
  } finally {
    await build.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle(process.argv[2]);
