/**
 * What the deploy recipes deploy: an app folder (package.json, its lockfile, agent.config.ts)
 * that depends on HubOS, here on the packed tarball standing for the registry's package, and the
 * account the server runs as.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { link, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanEnv, expectOk, npm } from '../helpers/packed-hubos.ts';
import { ROOT } from '../helpers/run.ts';
import type { Owner } from './replay-image.ts';

/** A config an agent can run `bash` and file tools with, in bubblewrap or not at all. */
export const SANDBOXED_CONFIG = `import { defineConfig } from 'hubos';

export default defineConfig({
  sandbox: { kind: 'bwrap' },
  agents: { assistant: { instructions: 'You are a concise assistant.', tools: ['bash', 'filesystem_*'] } },
});
`;

/** Writes the app and its lockfile, as its developer commits them. */
export async function writeApp(
  dir: string,
  tarball: string,
  config = SANDBOXED_CONFIG,
  dependencies: Record<string, string> = {},
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const pkg = {
    name: 'my-agents',
    private: true,
    type: 'module',
    dependencies: { hubos: `file:${tarball}`, ...dependencies },
  };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  await writeFile(join(dir, 'agent.config.ts'), config);
  // What stays out of the image: a secret and the developer's own install and data.
  await writeFile(join(dir, '.env'), 'OPENAI_API_KEY=sk-not-for-the-image\n');
  await mkdir(join(dir, '.hubos'));
  await writeFile(join(dir, '.hubos/hubos.db'), 'the developer database');
  expectOk(
    await npm(['install', '--package-lock-only', '--prefer-offline'], dir, env()),
    'npm install --package-lock-only',
  );
}

/** The tests' environment: no model key (the offline model answers), npm from its cache first. */
export function env(): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...cleanEnv, npm_config_prefer_offline: 'true' };
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_API_KEY', 'HUBOS_API_KEYS', 'PORT'])
    delete result[name];
  for (const name of Object.keys(result)) if (name.startsWith('HUBOS_')) delete result[name];
  return result;
}

/**
 * The account the server runs as: `nobody` when the tests run as root (as the image's and the
 * unit's own user, it owns nothing but its data), else the tests' own.
 */
export function serverAccount(): Owner {
  if (process.getuid?.() !== 0) return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  return { uid: 65534, gid: 65534 };
}

/**
 * A folder of `node` for the server's account: the Node running the tests, linked where that
 * account can reach it (root's home is closed to it), as the image has its own in /usr/local/bin.
 */
export async function nodeFor(dir: string): Promise<string> {
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  const node = join(bin, 'node');
  await link(process.execPath, node).catch(() => execFileSync('cp', [process.execPath, node]));
  return bin;
}

/**
 * The optional packages of the PostgreSQL store and the Redis bus (an app on them installs them),
 * at the versions the repo tests with, so npm finds them in its cache.
 */
export function driverPackages(): Record<string, string> {
  const repo = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const { ioredis, pg } = repo.devDependencies;
  return { ioredis: ioredis!, pg: pg! };
}
