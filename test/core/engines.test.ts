import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { NODE_ENGINES } from '../../core/node-version.ts';
import { lowestOfEachLine } from '../../scripts/install-matrix.ts';

interface LockEntry {
  version?: string;
  dev?: boolean;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
}

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));
const pkg = read('package.json') as { engines: { node: string }; peerDependencies?: Record<string, string> };
const lock = read('package-lock.json') as { packages: Record<string, LockEntry> };

/** Where `name`, required by the package at `from`, is installed: npm's lookup, nearest node_modules first. */
function resolve(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dir.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '')) {
    const at = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (lock.packages[at]) return at;
    if (!dir) return undefined;
  }
}

/** The packages an app installs with hubos: its dependencies, and the optional peers with theirs. */
function appPackages(): string[] {
  const found = new Set(Object.keys(lock.packages).filter((path) => path && !lock.packages[path]!.dev));
  const queue = Object.keys(pkg.peerDependencies ?? {}).map((name) => resolve('', name)!);
  while (queue.length > 0) {
    const path = queue.pop()!;
    if (found.has(path) && !lock.packages[path]!.dev) continue;
    found.add(path);
    for (const name of Object.keys(lock.packages[path]!.dependencies ?? {})) {
      const at = resolve(path, name);
      if (at && !found.has(at)) queue.push(at);
    }
  }
  return [...found];
}

describe("HubOS's engines and its dependencies'", () => {
  it('every package an app installs with hubos admits every Node.js version hubos declares', () => {
    expect(pkg.engines.node).toBe(NODE_ENGINES);
    const packages = appPackages();
    expect(packages).toContain('node_modules/undici');
    expect(packages).toContain('node_modules/ioredis');
    expect(packages).not.toContain('node_modules/bullmq');
    const narrower = packages
      .filter((path) => {
        const range = lock.packages[path]!.engines?.node;
        return range !== undefined && !semver.subset(NODE_ENGINES, range);
      })
      .map(
        (path) =>
          `${path.replace(/^.*node_modules\//, '')}@${lock.packages[path]!.version} needs ${lock.packages[path]!.engines!.node}`,
      );
    expect(narrower, `hubos declares ${NODE_ENGINES}`).toEqual([]);
  });
});

describe("the install matrix's Node.js versions", () => {
  it('are the lowest release of each major line the range admits', () => {
    const published = [
      '20.20.2',
      '22.18.0',
      '22.19.0',
      '22.23.3',
      '23.11.1',
      '24.0.0',
      '24.21.0',
      '26.0.0-rc.1',
    ];
    expect(lowestOfEachLine(NODE_ENGINES, [...published, '26.0.0', '26.10.0', '25.9.0', '25.0.0'])).toEqual([
      '22.19.0',
      '24.0.0',
      '25.0.0',
      '26.0.0',
    ]);
    expect(lowestOfEachLine('^22.19.0 || >=24.0.0', ['22.18.0', '23.0.0'])).toEqual([]);
  });
});
