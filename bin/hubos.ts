#!/usr/bin/env node
import { main } from './cli.ts';
import { resolveHubosToSelf } from './self-resolve.ts';

resolveHubosToSelf();
process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
});
