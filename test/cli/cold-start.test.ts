/**
 * A command loads only what it needs: `hubos --version` and `hubos --help` answer before the CLI,
 * the kernel or any dependency loads. Each module the process loads is recorded by a module hook.
 */
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HUBOS_BIN, ROOT, run, tempDir } from '../helpers/run.ts';

const RECORDER = pathToFileURL(`${ROOT}test/fixtures/cold-start/record-loads.mjs`).href;

/** The repo's and node_modules' modules a `hubos` command loads, relative to the repo. */
async function loadedBy(args: string[]): Promise<{ stdout: string; modules: string[] }> {
  const result = await run(process.execPath, ['--import', RECORDER, HUBOS_BIN, ...args], {
    cwd: await tempDir(),
  });
  expect(result.code, result.stderr).toBe(0);
  const root = pathToFileURL(ROOT).href;
  const modules = result.stderr
    .split('\n')
    .filter((line) => line.startsWith(`loaded ${root}`))
    .map((line) => line.slice(`loaded ${root}`.length));
  return { stdout: result.stdout, modules };
}

describe('cold commands load only what they need', () => {
  it('hubos --version loads the version guard and the version, nothing else', async () => {
    const { stdout, modules } = await loadedBy(['--version']);
    expect(stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(modules).toEqual(['bin/hubos.ts', 'core/node-version.ts', 'core/version.ts']);
  });

  it('hubos --help loads the usage text, nothing else', async () => {
    const { stdout, modules } = await loadedBy(['--help']);
    expect(stdout).toContain('Usage: hubos');
    expect(modules).toEqual(['bin/hubos.ts', 'core/node-version.ts', 'bin/usage.ts']);
  });

  it('a command loads its own module and not the other commands', async () => {
    const { modules } = await loadedBy(['validate']);
    const commands = modules.filter((path) => path.startsWith('bin/commands/'));
    expect(commands).toEqual(['bin/commands/validate.ts']);
  });
});
