#!/usr/bin/env node
// First and alone: on a Node.js too old for HubOS this says so in one line. The rest loads after it.
import '../core/node-version.ts';

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
