#!/usr/bin/env node
import { main } from './cli.ts';
import { resolveHubosToSelf } from './self-resolve.ts';

resolveHubosToSelf();
// Ctrl-C cancels the running work (runs end as "cancelled"); a second Ctrl-C exits at once.
const interrupt = new AbortController();
process.once('SIGINT', () => {
  interrupt.abort(new Error('interrupted'));
  process.once('SIGINT', () => process.exit(130));
});
process.exitCode = await main(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() },
  interrupt.signal,
);
