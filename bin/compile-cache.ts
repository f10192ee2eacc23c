import module from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { isPrivateFolder, privateCodeFolder, safeAncestors } from '../core/private-folder.ts';

/**
 * Node's compile cache keeps the JavaScript made from each file it loads and runs it on the next
 * start instead of the file, so whoever can write to its folder chooses the code HubOS runs. It is
 * used only in a folder that passes the same checks as the schema cache's (`privateCodeFolder`).
 */

/**
 * The folder NODE_COMPILE_CACHE made Node use from its start, when it fails those checks: Node
 * turned it on before any of HubOS ran, and it cannot be turned off, so the caller stops.
 */
export function unsafeCompileCacheFromEnv(): string | undefined {
  const dir = module.getCompileCacheDir?.();
  if (!dir) return undefined;
  try {
    return isPrivateFolder(dir) && safeAncestors(dirname(dir)) ? undefined : dirname(dir);
  } catch {
    return dirname(dir);
  }
}

/**
 * Turns the compile cache on in the user's own cache folder (XDG_CACHE_HOME, else ~/.cache), not
 * Node's default under the shared temp folder. Off with NODE_DISABLE_COMPILE_CACHE, already on
 * with NODE_COMPILE_CACHE (checked by `unsafeCompileCacheFromEnv`), and off where another user
 * could change the folder or one above it (HOME=/tmp, a shared XDG_CACHE_HOME).
 */
export function startCompileCache(): void {
  if (process.env.NODE_DISABLE_COMPILE_CACHE || module.getCompileCacheDir?.()) return;
  const dir = ownCacheDir('compile-cache');
  if (!dir) return;
  if (!privateCodeFolder(dir)) {
    debug(`the compile cache is off: ${dir} or a folder above it may be changed by another user`);
    return;
  }
  module.enableCompileCache?.(dir);
  // Written a second in as well as at exit: a process killed later (a serverless freeze, SIGKILL)
  // still leaves what it compiled for the next start.
  setTimeout(() => module.flushCompileCache?.(), 1_000).unref();
}

/**
 * A folder of the user's own cache for the compile or schema cache (made and checked by its
 * user), or none when the user has no home folder to find it in.
 */
export function ownCacheDir(name: string): string | undefined {
  try {
    const xdg = process.env.XDG_CACHE_HOME;
    const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
    return join(base, 'hubos', name);
  } catch {
    return undefined;
  }
}

function debug(message: string): void {
  if (process.env.HUBOS_DEBUG) process.stderr.write(`debug: ${message}\n`);
}
