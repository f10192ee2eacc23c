import { registerHooks } from 'node:module';
import { extname } from 'node:path';

/**
 * Under the `hubos` command, `import ... from 'hubos'` in a config or plugin resolves to the
 * running hubos: one copy of the kernel module in the process, and configs work in a folder
 * that has not installed hubos itself (e.g. right after `hubos init`).
 */
export function resolveHubosToSelf(): void {
  const ext = extname(new URL(import.meta.url).pathname);
  const entries: Record<string, string> = {
    hubos: new URL(`../core/index${ext}`, import.meta.url).href,
    'hubos/plugins': new URL(`../plugins/index${ext}`, import.meta.url).href,
    'hubos/server': new URL(`../plugins/hubos/server${ext}`, import.meta.url).href,
    'hubos/testing': new URL(`../testing/index${ext}`, import.meta.url).href,
  };
  registerHooks({
    resolve(specifier, context, next) {
      const own = entries[specifier];
      // Answered here rather than passed on: `require('hubos')` (a .cjs/.cts config) resolves too.
      return own ? { url: own, shortCircuit: true } : next(specifier, context);
    },
  });
}
