import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const HUBOS_BIN = join(ROOT, 'bin/hubos.ts');
export const CLOCK_FIXTURE = join(ROOT, 'test/fixtures/packages/hubos-plugin-clock');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a real process and collects its output; never rejects on a non-zero exit. */
export function run(
  file: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number },
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        timeout: options.timeout ?? 60_000,
        maxBuffer: 16 << 20,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** The `hubos` command from the repo's sources, on the Node running the tests. */
export function hubos(args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<RunResult> {
  return run(process.execPath, [HUBOS_BIN, ...args], { cwd, ...(env ? { env } : {}) });
}

/** A fresh temporary folder. */
export function tempDir(prefix = 'hubos-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Writes files (path -> content) under `root`. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

/**
 * A project folder with the clock fixture installed as a package (copied, as npm would) and
 * `hubos` linked to this repo, so the fixture's own `import 'hubos'` resolves like a user's would.
 */
export async function projectWithClockPlugin(config: string): Promise<string> {
  const dir = await tempDir('hubos-project-');
  await cp(CLOCK_FIXTURE, join(dir, 'node_modules/hubos-plugin-clock'), { recursive: true });
  await symlink(ROOT, join(dir, 'node_modules/hubos'), 'dir');
  await writeFiles(dir, {
    'package.json': '{ "name": "app", "private": true, "type": "module" }\n',
    'agent.config.ts': config,
  });
  return dir;
}
