import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { resolvesTo } from '../../bin/self-resolve.ts';

const root = mkdtempSync(join(tmpdir(), 'hubos-load-hooks-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** An app folder with this package.json and, if given, node_modules/hubos linked to `hubos`. */
function app(name: string, manifest: object | undefined, hubos?: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  if (manifest) writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  if (hubos) symlinkSync(hubos, join(dir, 'node_modules/hubos'), 'dir');
  return dir;
}

/** A package named hubos whose main entry is core/index.js, as the installed package's is. */
function hubosPackage(name: string): { dir: string; entry: string } {
  const dir = join(root, name);
  mkdirSync(join(dir, 'core'), { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'hubos', type: 'module', exports: { '.': './core/index.js' } }),
  );
  writeFileSync(join(dir, 'core/index.js'), 'export {};\n');
  return { dir, entry: pathToFileURL(join(dir, 'core/index.js')).href };
}

describe('the hook resolving hubos to the running copy goes after start only where the app resolves it there', () => {
  it('tells whether the app resolves hubos to the running copy', () => {
    const running = hubosPackage('hubos-running');
    const other = hubosPackage('hubos-other');
    expect(resolvesTo(app('same', { type: 'module' }, running.dir), running.entry)).toBe(true);
    expect(resolvesTo(app('other-copy', { type: 'module' }, other.dir), running.entry)).toBe(false);
    expect(resolvesTo(app('none', { type: 'module' }), running.entry)).toBe(false);
  });
});
