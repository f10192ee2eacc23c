import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { resolvesTo } from '../../bin/self-resolve.ts';
import { loadsAsModules } from '../../core/app-module-format.ts';

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

describe('the module hooks the hubos command registers only where they change something', () => {
  it('resolves hubos to itself by hook unless the app already resolves it to the running copy', () => {
    const running = hubosPackage('hubos-running');
    const other = hubosPackage('hubos-other');
    expect(resolvesTo(app('same', { type: 'module' }, running.dir), running.entry)).toBe(true);
    expect(resolvesTo(app('other-copy', { type: 'module' }, other.dir), running.entry)).toBe(false);
    expect(resolvesTo(app('none', { type: 'module' }), running.entry)).toBe(false);
  });

  it('loads app files as written by hook unless their package says "type": "module"', () => {
    const file = (dir: string) => join(dir, 'agent.config.ts');
    expect(loadsAsModules(file(app('esm', { type: 'module' })))).toBe(true);
    expect(loadsAsModules(file(app('cjs', { type: 'commonjs' })))).toBe(false);
    expect(loadsAsModules(file(app('untyped', {})))).toBe(false);
    expect(loadsAsModules(pathToFileURL(join(root, 'x/node_modules/pkg/index.js')).href)).toBe(true);
  });
});
