import { realpathSync } from 'node:fs';
import { createRequire, registerHooks } from 'node:module';
import { extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hubosPackageRoot } from '../core/version.ts';

let wanted = false;
let hook: { deregister(): void } | undefined;

/**
 * Under the `hubos` command, `import ... from 'hubos'` in a config or plugin resolves to the
 * running hubos: one copy of the kernel module in the process (a plugin with its own copy of
 * hubos included), and configs work in a folder that has not installed hubos itself (e.g. right
 * after `hubos init`). Called first by the command; the hook itself is registered just before the
 * config loads (`registerSelfResolve`) and goes once it has loaded where it is not needed
 * (`settleSelfResolve`), since a registered hook makes every later module load slower.
 */
export function resolveHubosToSelf(): void {
  wanted = true;
}

/** Registers the hook, once, if the `hubos` command asked for it; in-process callers get none. */
export function registerSelfResolve(): void {
  if (!wanted || hook) return;
  const entries: Record<string, string> = {
    hubos: ownEntry('core/index'),
    'hubos/plugins': ownEntry('plugins/index'),
    'hubos/server': ownEntry('plugins/hubos/server'),
    'hubos/testing': ownEntry('testing/index'),
  };
  hook = registerHooks({
    resolve(specifier, context, next) {
      const own = entries[specifier];
      // Answered here rather than passed on: `require('hubos')` (a .cjs/.cts config) resolves too.
      return own ? { url: own, shortCircuit: true } : next(specifier, context);
    },
  });
}

/**
 * Once the config and its plugins have loaded: where the app itself resolves `hubos` to the running
 * copy, what it imports later does too, and the hook goes (it makes every later module load slower).
 */
export function settleSelfResolve(appDir: string): void {
  if (!hook || !resolvesTo(appDir, ownEntry('core/index'))) return;
  hook.deregister();
  hook = undefined;
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

/** The URL of one of the running copy's entries: the sources (.ts) or the package's dist/ (.js, maybe bundled). */
function ownEntry(path: string): string {
  const fromSources = extname(new URL(import.meta.url).pathname) === '.ts';
  return pathToFileURL(join(hubosPackageRoot(), fromSources ? `${path}.ts` : `dist/${path}.js`)).href;
}
