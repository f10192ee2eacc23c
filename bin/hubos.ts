#!/usr/bin/env node
import { main } from './cli.ts';
import { resolveHubosToSelf } from './self-resolve.ts';

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
