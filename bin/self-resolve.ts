import { realpathSync } from 'node:fs';
import { createRequire, registerHooks } from 'node:module';
import { extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hubosPackageRoot } from '../core/version.ts';

/**
 * Under the `hubos` command, `import ... from 'hubos'` in a config or plugin resolves to the
 * running hubos: one copy of the kernel module in the process, and configs work in a folder
 * that has not installed hubos itself (e.g. right after `hubos init`). When `hubos` already
 * resolves to the running copy from `appDir` (the usual install) no hook is registered: a resolve
 * hook makes every later module load slower.
 */
export function resolveHubosToSelf(appDir: string): void {
  // Running from the sources (.ts) or from the package's dist/ (.js, maybe bundled into a chunk).
  const fromSources = extname(new URL(import.meta.url).pathname) === '.ts';
  const entry = (path: string) =>
    pathToFileURL(join(hubosPackageRoot(), fromSources ? `${path}.ts` : `dist/${path}.js`)).href;
  const entries: Record<string, string> = {
    hubos: entry('core/index'),
    'hubos/plugins': entry('plugins/index'),
    'hubos/server': entry('plugins/hubos/server'),
    'hubos/testing': entry('testing/index'),
  };
  if (resolvesTo(appDir, entries.hubos!)) return;
  registerHooks({
    resolve(specifier, context, next) {
      const own = entries[specifier];
      // Answered here rather than passed on: `require('hubos')` (a .cjs/.cts config) resolves too.
      return own ? { url: own, shortCircuit: true } : next(specifier, context);
    },
  });
}

/** Whether `hubos`, resolved as the app in `dir` would, is the module at `own`. @internal */
export function resolvesTo(dir: string, own: string): boolean {
  try {
    const found = createRequire(join(dir, 'agent.config.js')).resolve('hubos');
    return realpathSync(found) === realpathSync(fileURLToPath(own));
  } catch {
    return false; // not installed there (or not resolvable): the hook answers for it
  }
}
