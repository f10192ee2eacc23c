import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: { dir: string; version: string } | undefined;

/**
 * The version in HubOS's own package.json, which every surface reports (`hubos --version`, MCP
 * `initialize`, A2A cards, the OpenAPI document). Found upwards from this file, so it is the same
 * from source (core/version.ts) and from the built package (a chunk in dist/chunks/), whatever the
 * package is named (a fork, a scoped copy).
 */
export function hubosVersion(): string {
  return packageRoot().version;
}

/** The folder of HubOS's own package.json: the repository, or `node_modules/hubos`. @internal */
export function hubosPackageRoot(): string {
  return packageRoot().dir;
}

function packageRoot(): { dir: string; version: string } {
  root ??= findRoot(dirname(fileURLToPath(import.meta.url)));
  return root;
}

function findRoot(start: string): { dir: string; version: string } {
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      // The nearest package.json is the package's own: dist/ has none of its own.
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { version?: string };
      return { dir, version: pkg.version ?? '0.0.0' };
    }
    if (dirname(dir) === dir) return { dir: start, version: '0.0.0' };
  }
}
