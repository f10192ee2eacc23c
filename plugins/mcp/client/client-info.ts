import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let version: string | undefined;

/** HubOS's version (from its package.json, found upwards from here), which `initialize` reports. */
export function clientVersion(): string {
  if (version !== undefined) return version;
  version = '0.0.0';
  for (let dir = dirname(fileURLToPath(import.meta.url)); dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'hubos') {
      version = pkg.version ?? version;
      break;
    }
  }
  return version;
}
