/**
 * The repo packed as a user gets it (`npm pack`, built by prepack), made once for every test file
 * that needs it: packing rebuilds dist/, so two files packing at once would clobber each other.
 * A lock folder serializes them, and the tarball is kept under node_modules/.cache keyed by the
 * sources it was built from, so the next file (and the next run, unchanged) reuses it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { delimiter, dirname, join, relative } from 'node:path';
import { expect } from 'vitest';
import { ROOT, type RunResult, run } from './run.ts';

/**
 * npm settings inherited from an outer `npm test` must not steer the inner npm commands, and an
 * installed `hubos` bin (`#!/usr/bin/env node`) runs on the Node running the tests.
 */
/**
 * How long a test that installs, builds and tests a package with npm may take: seconds on an idle
 * machine, but npm's work is CPU and disk bound, and under a loaded machine it passed 20 s.
 */
export const INSTALL_TIMEOUT = 180_000;

export const cleanEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key))),
  PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
};

export function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv): Promise<RunResult> {
  return run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env, timeout: 240_000 });
}

export function expectOk(result: RunResult, what: string): void {
  expect(result.code, `${what} failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
}

const SOURCES = [
  'core',
  'plugins',
  'bin',
  'testing',
  'scripts',
  'package.json',
  'tsconfig.build.json',
  'tsconfig.json',
];

export async function packedHubos(): Promise<string> {
  const dir = join(ROOT, 'node_modules/.cache/hubos-pack', sourcesKey());
  const lock = join(ROOT, 'node_modules/.cache/hubos-pack.lock');
  await mkdir(join(ROOT, 'node_modules/.cache'), { recursive: true });
  await acquire(lock);
  try {
    const existing = existsSync(dir) ? readdirSync(dir).find((name) => name.endsWith('.tgz')) : undefined;
    if (existing) return join(dir, existing);
    await mkdir(dir, { recursive: true });
    const pack = await npm(['pack', '--pack-destination', dir, '--json'], ROOT);
    if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stdout}\n${pack.stderr}`);
    return join(dir, (JSON.parse(pack.stdout) as { filename: string }[])[0]!.filename);
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** A hash of every source file's path, size and modification time. */
function sourcesKey(): string {
  const hash = createHash('sha256');
  const visit = (path: string) => {
    const info = statSync(path);
    if (info.isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name));
    } else {
      hash.update(`${relative(ROOT, path)}\0${info.size}\0${info.mtimeMs}\n`);
    }
  };
  for (const source of SOURCES) visit(join(ROOT, source));
  return hash.digest('hex').slice(0, 16);
}

/** Takes the lock folder, waiting for another holder; one older than ten minutes was abandoned. */
async function acquire(lock: string): Promise<void> {
  for (;;) {
    try {
      await mkdir(lock);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = await stat(lock).catch(() => undefined);
      if (held && Date.now() - held.mtimeMs > 600_000) await rm(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
