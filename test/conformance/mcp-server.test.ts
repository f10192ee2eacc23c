import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HUBOS_BIN, ROOT, tempDir } from '../helpers/run.ts';

const run = promisify(execFile);
const CONFIG = join(ROOT, 'test/fixtures/mcp-conformance/agent.config.ts');
const SUITE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** Every scenario of the suite's active set (version 0.1.16): none may go missing unnoticed. */
const ACTIVE = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'server-sse-multiple-streams',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
];

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

let child: ChildProcess | undefined;
let url = '';
let dir = '';

/** `hubos serve` with the conformance fixture, as a user runs it; ready once it listens. */
beforeAll(async () => {
  dir = await tempDir('hubos-mcp-conformance-');
  child = spawn(process.execPath, [HUBOS_BIN, 'serve', '--port', '0', '--config', CONFIG], {
    cwd: dir,
    env: { ...process.env, HUBOS_TEST_WORKSPACE: join(dir, 'workspace'), HUBOS_API_KEYS: '' },
  });
  let output = '';
  const listening = await new Promise<string>((resolve, reject) => {
    const read = (data: Buffer) => {
      output += data;
      const found = /listening on (\S+)/.exec(output)?.[1];
      if (found) resolve(found);
    };
    child!.stdout!.on('data', read);
    child!.stderr!.on('data', read);
    child!.once('exit', (code) =>
      reject(new Error(`hubos serve exited (${code}) before listening:\n${output}`)),
    );
  });
  // The suite's DNS-rebinding scenario speaks to a localhost name.
  url = `${listening.replace('127.0.0.1', 'localhost')}/mcp`;
}, 30_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

/** Runs the official suite against the server; returns each scenario's checks, read from its checks.json. */
async function conformance(args: string[]): Promise<Map<string, Check[]>> {
  const out = join(dir, `results-${args.join('-')}`);
  await run(process.execPath, [SUITE, 'server', '--url', url, ...args, '-o', out], {
    timeout: 50_000,
    maxBuffer: 16 << 20,
  }).catch((error: { stdout?: string; stderr?: string }) => {
    // A failed check exits 1: the checks below say which; anything else is the suite failing to run.
    if (!error.stdout?.includes('=== SUMMARY ==='))
      throw new Error(`the suite did not run:\n${error.stderr}`);
  });
  const results = new Map<string, Check[]>();
  for (const folder of readdirSync(out)) {
    const scenario = folder.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    results.set(scenario, JSON.parse(readFileSync(join(out, folder, 'checks.json'), 'utf8')) as Check[]);
  }
  return results;
}

/** The checks that did not succeed, as lines naming the scenario, the check and its message. */
function unsuccessful(results: Map<string, Check[]>): string[] {
  return [...results].flatMap(([scenario, checks]) =>
    checks
      .filter((check) => check.status !== 'SUCCESS')
      .map((check) => `${scenario} / ${check.id}: ${check.status} ${check.errorMessage ?? ''}`),
  );
}

describe('the official MCP conformance suite against `hubos serve`', () => {
  it('passes every check of every active scenario', async () => {
    const results = await conformance(['--suite', 'active']);
    expect([...results.keys()].sort()).toEqual([...ACTIVE].sort());
    expect(unsuccessful(results), 'checks that did not succeed').toEqual([]);
    expect([...results.values()].flat().length).toBeGreaterThanOrEqual(40);
  }, 60_000);

  it('passes the pending json-schema-2020-12 scenario: schemas are listed exactly as declared', async () => {
    const results = await conformance(['--scenario', 'json-schema-2020-12']);
    expect(results.get('json-schema-2020-12')?.map((check) => check.id)).toEqual([
      'json-schema-2020-12-tool-found',
      'json-schema-2020-12-$schema',
      'json-schema-2020-12-$defs',
      'json-schema-2020-12-additionalProperties',
    ]);
    expect(unsuccessful(results), 'checks that did not succeed').toEqual([]);
  }, 60_000);
});
