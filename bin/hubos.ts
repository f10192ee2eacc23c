#!/usr/bin/env node
// First and alone: on a Node.js too old for HubOS this says so in one line and exits. The rest loads after it.
import './node-check.ts';
import module from 'node:module';

const [first] = process.argv.slice(2);
// A compile cache already on here was turned on by NODE_COMPILE_CACHE: its folder is checked first.
const unsafeCache = module.getCompileCacheDir?.()
  ? (await import('./compile-cache.ts')).unsafeCompileCacheFromEnv()
  : undefined;
if (unsafeCache) {
  // Node already runs what it finds there: stopped before any more of HubOS loads through it.
  process.stderr.write(
    `hubos: NODE_COMPILE_CACHE is ${unsafeCache}, a folder another user may change (it or a folder above it is not this user's, or others may write to it): code kept there could be forged. Point it at a private folder, or unset it.\n`,
  );
  process.exitCode = 1;
} else if (first === '-v' || first === '--version') {
  // The version and the usage need nothing else: answered before the CLI and the kernel load.
  const { hubosVersion } = await import('../core/version.ts');
  process.stdout.write(`${hubosVersion()}\n`);
} else if (
  first === undefined ||
  first === '-h' ||
  first === '--help' ||
  (first === 'help' && !process.argv[3])
) {
  const { USAGE } = await import('./usage.ts');
  process.stdout.write(USAGE);
} else if (first === 'help' || wantsHelp(process.argv.slice(3))) {
  // `hubos help [<command>]` and `hubos <command> --help`: plain text, answered before the CLI loads.
  const { helpCommand } = await import('./help-command.ts');
  process.exitCode = helpCommand(process.argv.slice(2), process.stdout, process.stderr);
} else {
  // Compiled code is cached on disk (Node's compile cache, off with NODE_DISABLE_COMPILE_CACHE=1):
  // a later start skips compiling what it loads, about a tenth of a server's cold start.
  const { ownCacheDir, startCompileCache } = await import('./compile-cache.ts');
  startCompileCache();
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

/** Whether a command's arguments ask for its help: -h or --help before any `--`. */
function wantsHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '-h' || arg === '--help');
}
