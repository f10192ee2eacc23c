#!/usr/bin/env node
// First and alone: on a Node.js too old for HubOS this says so in one line. The rest loads after it.
import '../core/node-version.ts';
import module from 'node:module';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';

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
  module.enableCompileCache?.();
  // Written a second in as well as at exit: a process killed later (a serverless freeze, SIGKILL)
  // still leaves what it compiled for the next start.
  setTimeout(() => module.flushCompileCache?.(), 1_000).unref();
  const { resolveHubosToSelf } = await import('./self-resolve.ts');
  const { main } = await import('./cli.ts');
  resolveHubosToSelf(appDir(process.argv.slice(3)));
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

/** The folder the app's config is in: `--config`'s, else the working one (the search starts there). */
function appDir(args: string[]): string {
  const { values } = parseArgs({ args, options: { config: { type: 'string' } }, strict: false });
  return typeof values.config === 'string' ? dirname(resolve(values.config)) : process.cwd();
}
