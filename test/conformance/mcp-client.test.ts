import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SUITE = 'node_modules/@modelcontextprotocol/conformance/dist/index.js';
const CLIENT = fileURLToPath(new URL('../fixtures/mcp-conformance-client/client.ts', import.meta.url));

/** The suite's scenarios (v0.1.16) HubOS's client is held to, by the runs that cover them. */
const CORE = [
  'initialize',
  'tools_call',
  'elicitation-sep1034-client-defaults',
  'sse-retry',
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
];
const BACKCOMPAT = ['auth/2025-03-26-oauth-metadata-backcompat', 'auth/2025-03-26-oauth-endpoint-fallback'];
const DRAFT = ['auth/resource-mismatch', 'auth/offline-access-scope', 'auth/offline-access-not-supported'];
// Of the extensions, cross-app-access (SEP-990: an enterprise IdP's ID token exchanged for a
// jwt-bearer grant) is left out: the SDK's client auth does not do it and HubOS offers no such grant.
const EXTENSIONS = ['auth/client-credentials-basic', 'auth/client-credentials-jwt'];

interface Check {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  description: string;
  errorMessage?: string;
}

const out = mkdtempSync(join(tmpdir(), 'hubos-conformance-client-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Runs the suite on `args` (a suite or a scenario), results saved under `out/<label>`. */
async function conformance(label: string, args: string[]): Promise<void> {
  await run(
    process.execPath,
    [SUITE, 'client', '--command', `${process.execPath} ${CLIENT}`, ...args, '-o', join(out, label)],
    { timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string; stderr?: string; killed?: boolean }) => {
    // A failing check makes the suite exit 1: the checks say which, below. Only a hang is fatal here.
    if (error.killed)
      throw new Error(`the conformance suite did not finish:\n${error.stdout}\n${error.stderr}`);
  });
}

/** Each scenario's checks (and its client's stderr), read from the saved results. */
function results(): Map<string, { checks: Check[]; stderr: string }> {
  const found = new Map<string, { checks: Check[]; stderr: string }>();
  for (const file of readdirSync(out, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('checks.json')) continue;
    const dir = dirname(join(out, file));
    // <label>/<scenario>-<timestamp>/checks.json, the scenario's "/" making folders of its own.
    const scenario = relative(out, dir)
      .split('/')
      .slice(1)
      .join('/')
      .replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
    const checks = JSON.parse(readFileSync(join(dir, 'checks.json'), 'utf8')) as Check[];
    found.set(scenario, { checks, stderr: readFileSync(join(dir, 'stderr.txt'), 'utf8') });
  }
  return found;
}

/** Runs `scenarios` one by one, `width` at a time: each boots a HubOS client process. */
async function runEach(scenarios: readonly string[], width: number): Promise<void> {
  const queue = [...scenarios];
  const worker = async () => {
    for (let scenario = queue.shift(); scenario; scenario = queue.shift())
      await conformance(scenario.replace(/\//g, '_'), ['--scenario', scenario]);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

describe('the official MCP conformance suite against HubOS as an MCP client', () => {
  it('passes every check of the core suite, the backcompat and draft scenarios and client credentials', async () => {
    // sse-retry measures how long the client waits before reconnecting: it runs alone, so that
    // the other scenarios' processes do not delay its timers.
    const timed = 'sse-retry';
    await runEach(
      [...CORE, ...BACKCOMPAT, ...DRAFT, ...EXTENSIONS].filter((scenario) => scenario !== timed),
      3,
    );
    await runEach([timed], 1);
    const found = results();
    expect([...found.keys()].sort()).toEqual([...CORE, ...BACKCOMPAT, ...DRAFT, ...EXTENSIONS].sort());
    const failing: string[] = [];
    for (const [scenario, { checks, stderr }] of found) {
      const bad = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
      if (!checks.some((check) => check.status === 'SUCCESS')) failing.push(`${scenario}: no check passed`);
      for (const check of bad)
        failing.push(
          `${scenario}: ${check.status} ${check.name}: ${check.errorMessage ?? check.description}`,
        );
      if (bad.length > 0 && stderr.trim()) failing.push(`  client stderr:\n${stderr.trim()}`);
    }
    expect(failing, failing.join('\n')).toEqual([]);
  }, 300_000);
});
