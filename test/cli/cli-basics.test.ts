import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hubos, ROOT, tempDir } from '../helpers/run.ts';

const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;

describe('hubos command line', () => {
  it('prints usage for --help and no arguments, exit 0', async () => {
    for (const args of [['--help'], [], ['help']]) {
      const result = await hubos(args, ROOT);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Usage: hubos <command>');
      expect(result.stdout).toContain('create-plugin');
    }
  });

  it('prints the package version', async () => {
    for (const flag of ['--version', '-v']) {
      const result = await hubos([flag], ROOT);
      expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
    }
  });

  it('rejects an unknown command with usage and exit 2', async () => {
    const result = await hubos(['frobnicate'], ROOT);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "frobnicate"');
    expect(result.stderr).not.toContain('did you mean');
    expect(result.stderr).toContain('Usage: hubos');
  });

  it('suggests the command a typo meant', async () => {
    const typos = [
      ['serv', 'serve'],
      ['tool', 'tools'],
      ['Run', 'run'],
      ['valdiate', 'validate'],
      ['create', 'create-plugin'],
    ] as const;
    const results = await Promise.all(typos.map(([typo]) => hubos([typo], ROOT)));
    for (const [i, [typo, meant]] of typos.entries()) {
      expect(results[i]!.code).toBe(2);
      expect(results[i]!.stderr).toContain(`unknown command "${typo}" (did you mean "hubos ${meant}"?)`);
    }
  });

  it('rejects unknown flags, flags of another command and stray arguments', async () => {
    const cases: [string[], string][] = [
      [['tools', '--nope'], 'tools: unknown option "--nope" (its options: --json, --config, --mode, --help)'],
      [['validate', '--json'], 'validate: unknown option "--json"'],
      [['tools', 'extra'], 'tools: unexpected argument "extra"'],
      [['--bogus'], 'unknown option "--bogus"'],
      [['tools', '--config'], "'--config <value>' argument missing"],
    ];
    for (const [args, message] of cases) {
      const result = await hubos(args, ROOT);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain('Usage: hubos');
    }
  });

  it('says when no config is found and uses the built-in defaults', async () => {
    const dir = await tempDir();
    const result = await hubos(['tools'], dir);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('No agent.config.{ts,mts,cts,js,mjs,cjs} found');
    expect(result.stderr).toContain('built-in defaults');
    // The defaults are the built-in tools.
    expect(result.stdout).toContain('11 tool(s):');
    expect(result.stdout).toContain('filesystem_read  [fs:read]');
  });
});
