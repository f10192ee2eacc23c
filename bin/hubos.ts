#!/usr/bin/env node
// First and alone: on a Node.js too old for HubOS this says so in one line and exits. The rest loads after it.
import './node-check.ts';
import { mkdirSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

const [first] = process.argv.slice(2);
if (first === '-v' || first === '--version') {
  // The version and the usage need nothing else: answered before the CLI and the kernel load.
  const { hubosVersion } = await import('../core/version.ts');
  process.stdout.write(`${hubosVersion()}\n`);
} else if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
  const { USAGE } = await import('./usage.ts');
  process.stdout.write(USAGE);
} else {
  // Compiled code is cached on disk (Node's compile cache, off with NODE_DISABLE_COMPILE_CACHE=1):
  // a later start skips compiling what it loads, about a tenth of a server's cold start.
  const cacheDir = process.env.NODE_COMPILE_CACHE || ownCacheDir('compile-cache');
  if (cacheDir) {
    module.enableCompileCache?.(cacheDir);
    // Written a second in as well as at exit: a process killed later (a serverless freeze, SIGKILL)
    // still leaves what it compiled for the next start.
    setTimeout(() => module.flushCompileCache?.(), 1_000).unref();
  }
  // Schema checks are cached beside it (a server's first run then loads no ajv); off with it.
  const schemaDir = process.env.NODE_DISABLE_COMPILE_CACHE ? undefined : ownCacheDir('schema-cache');
  if (schemaDir) (await import('../core/schema-cache.ts')).enableSchemaCache(schemaDir);
  const { resolveHubosToSelf } = await import('./self-resolve.ts');
  const { main } = await import('./cli.ts');
  resolveHubosToSelf();
  // Ctrl-C (or SIGTERM) cancels the running work or stops the server gracefully; a second one exits at once.
  const interrupt = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupt.abort(new Error('interrupted'));
      process.once(signal, () => process.exit(130));
    });
  }
  process.exitCode = await main(
    process.argv.slice(2),
    { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() },
    interrupt.signal,
  );
}

/**
 * A folder of the user's own cache (XDG_CACHE_HOME, else ~/.cache) for the compile or schema cache, made private.
 * Not Node's default, a folder under the shared temp dir: another local user could make it first
 * and put compiled code there for this user's process to run. None when it cannot be made.
 */
function ownCacheDir(name: string): string | undefined {
  try {
    const xdg = process.env.XDG_CACHE_HOME;
    const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
    const dir = join(base, 'hubos', name);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  } catch {
    return undefined;
  }
}
