/**
 * The install matrix (`npm run test:install`, run by CI): on each Node.js line HubOS declares, at
 * its lowest admitted release, the packed tarball goes into a fresh app as a user installs it:
 * `npm init -y`, `npm install <tarball>`, `hubos init`, `npm install <a package>` under the app's
 * engine-strict .npmrc, `npm test`, `npm run typecheck` and `hubos run` with the offline model.
 * Each Node.js comes from the npm registry's `node` package (cached: scripts/install-matrix.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { matrixVersions, nodeBinDir } from '../../scripts/install-matrix.ts';
import { cleanEnv, packedHubos } from '../helpers/packed-hubos.ts';
import { type RunResult, run, tempDir } from '../helpers/run.ts';

const versions = matrixVersions();

/** Packed once, for every version. */
let tarball: string;
beforeAll(async () => {
  tarball = await packedHubos();
});

/** Every file under node_modules that is a native addon, or would be built into one. */
function nativeAddons(dir: string): string[] {
  const found: string[] = [];
  const visit = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.node') || entry.name === 'binding.gyp')
        found.push(path.slice(dir.length + 1));
    }
  };
  visit(join(dir, 'node_modules'));
  return found;
}

describe.each(versions)('Node.js %s', (version) => {
  it('installs hubos into a fresh app, which inits, installs more, tests, typechecks and runs', async () => {
    const bin = nodeBinDir(version);
    // Without a model's key, as a new user starts; npm, npx and the bins run on this Node.js.
    const env: NodeJS.ProcessEnv = {
      ...cleanEnv,
      PATH: `${bin}${delimiter}${cleanEnv.PATH ?? ''}`,
      OPENAI_API_KEY: '',
      ANTHROPIC_API_KEY: '',
      OPENAI_BASE_URL: '',
    };
    const app = await tempDir(`hubos-node-${version}-`);
    /** Runs one step, failing with the version, the step and its output when it exits non-zero. */
    const step = async (what: string, file: string, args: string[], extra: NodeJS.ProcessEnv = {}) => {
      const result: RunResult = await run(file, args, {
        cwd: app,
        env: { ...env, ...extra },
        timeout: 300_000,
      });
      if (result.code !== 0) {
        throw new Error(
          `Node.js ${version}: ${what} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
        );
      }
      return result;
    };
    const npm = (what: string, args: string[]) =>
      step(what, 'npm', [...args, '--no-audit', '--no-fund', '--prefer-offline']);
    try {
      expect((await step('node --version', 'node', ['--version'])).stdout.trim()).toBe(`v${version}`);
      await npm('npm init -y', ['init', '-y']);
      const install = await npm('npm install <tarball>', ['install', tarball]);
      // Nothing to approve and no engine to complain about: hubos and what it brings fit this Node.js.
      expect(install.stderr, `Node.js ${version}: npm install <tarball>`).not.toMatch(
        /EBADENGINE|install-scripts/,
      );
      await step('hubos init', 'npx', ['--no', 'hubos', 'init']);
      expect(readFileSync(join(app, '.npmrc'), 'utf8')).toContain('engine-strict=true');
      // A later install checks every installed package's engines against this Node.js (engine-strict).
      await npm('npm install ms (engine-strict)', ['install', 'ms']);
      // An app on SQLite installs no native addon, nor the clients of PostgreSQL and Redis.
      expect(nativeAddons(app), `Node.js ${version}: native addons`).toEqual([]);
      expect(existsSync(join(app, 'node_modules/ioredis'))).toBe(false);
      expect(existsSync(join(app, 'node_modules/pg'))).toBe(false);
      const test = await npm('npm test', ['test']);
      expect(test.stdout).toMatch(/pass 2\n/);
      await npm('npm run typecheck', ['run', 'typecheck']);
      const roll = await step('hubos run', 'npx', [
        '--no',
        'hubos',
        'run',
        'assistant',
        '/dice_roll {"count": 2}',
      ]);
      expect(roll.stdout).toMatch(/dice_roll returned: \{"rolls":\[\d+,\d+\],"total":\d+\}/);
      // The Redis bus without its packages: one error naming what to install, before any connection.
      const redis = await run('npx', ['--no', 'hubos', 'validate'], {
        cwd: app,
        env: { ...env, HUBOS_REDIS_URL: 'redis://127.0.0.1:1' },
      });
      expect(redis.code).toBe(1);
      expect(redis.stderr).toContain('npm install ioredis');
      // What it names is all it needs: with ioredis alone the bus loads and tries Redis (none there).
      await npm('npm install ioredis', ['install', 'ioredis']);
      expect(nativeAddons(app), `Node.js ${version}: native addons with ioredis`).toEqual([]);
      expect(existsSync(join(app, 'node_modules/bullmq'))).toBe(false);
      const withClient = await run('npx', ['--no', 'hubos', 'validate'], {
        cwd: app,
        env: { ...env, HUBOS_REDIS_URL: 'redis://127.0.0.1:1' },
      });
      expect(withClient.code).toBe(1);
      expect(withClient.stderr).toContain('[BUS_FAILED]');
      expect(withClient.stderr).not.toContain('npm install');
      // The PostgreSQL store without pg: the same, naming its one package.
      const postgres = await run('npx', ['--no', 'hubos', 'validate'], {
        cwd: app,
        env: { ...env, HUBOS_DATABASE_URL: 'postgres://hubos@127.0.0.1:1/hubos' },
      });
      expect(postgres.code).toBe(1);
      expect(postgres.stderr).toContain('npm install pg');
    } finally {
      await rm(app, { recursive: true, force: true });
    }
  });
});
