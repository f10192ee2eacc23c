/**
 * The Node.js versions the install matrix (test/install/install-matrix.test.ts, `npm run
 * test:install`) proves HubOS on, and their binaries. For each major line that `engines` admits
 * and the npm registry has, its lowest admitted release: where a dependency asking for more than
 * HubOS declares would fail. HUBOS_MATRIX_NODES ("22.19.0 24.0.0") names them instead.
 *
 * `node scripts/install-matrix.ts` prints them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The lowest release of each major line that `range` admits, oldest line first. */
export function lowestOfEachLine(range: string, versions: string[]): string[] {
  const lowest = new Map<number, string>();
  for (const version of versions
    .filter((v) => semver.valid(v) && !semver.prerelease(v))
    .sort(semver.compare)) {
    const major = semver.major(version);
    if (!lowest.has(major) && semver.satisfies(version, range)) lowest.set(major, version);
  }
  return [...lowest.values()];
}

/** The versions to prove: HUBOS_MATRIX_NODES, or the lowest admitted release of each line on the registry. */
export function matrixVersions(env: NodeJS.ProcessEnv = process.env): string[] {
  const named = env.HUBOS_MATRIX_NODES?.split(/[\s,]+/).filter(Boolean);
  if (named && named.length > 0) return named;
  const range = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }
  ).engines.node;
  const published = JSON.parse(
    execFileSync('npm', ['view', 'node', 'versions', '--json', '--loglevel=error'], { encoding: 'utf8' }),
  ) as string[];
  return lowestOfEachLine(range, published);
}

/**
 * The folder holding Node.js `version`'s `node`, installed from the npm registry's `node` package
 * into a cache folder (HUBOS_NODE_CACHE, default ~/.cache/hubos-nodes) the first time.
 */
export function nodeBinDir(version: string, env: NodeJS.ProcessEnv = process.env): string {
  const prefix = join(env.HUBOS_NODE_CACHE || join(homedir(), '.cache/hubos-nodes'), version);
  const bin = join(prefix, 'node_modules/.bin');
  if (!existsSync(join(bin, 'node'))) {
    execFileSync(
      'npm',
      ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', `node@${version}`],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
  }
  const actual = execFileSync(join(bin, 'node'), ['-p', 'process.versions.node'], {
    encoding: 'utf8',
  }).trim();
  if (actual !== version) throw new Error(`${join(bin, 'node')} is Node.js ${actual}, not ${version}`);
  return bin;
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  process.stdout.write(`${matrixVersions().join('\n')}\n`);
