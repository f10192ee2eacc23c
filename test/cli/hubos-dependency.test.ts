import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hubosDependency } from '../../bin/hubos-dependency.ts';
import { hubosVersion } from '../../bin/version.ts';
import { tempDir, writeFiles } from '../helpers/run.ts';

/** An app depending on hubos by `spec`, and the folder a scaffold goes to elsewhere. */
async function app(spec: string) {
  const root = await tempDir('hubos-dep-');
  await writeFiles(root, {
    'app/package.json': JSON.stringify({ name: 'app', dependencies: { hubos: spec } }),
  });
  await mkdir(join(root, 'elsewhere/deep'), { recursive: true });
  return { app: join(root, 'app'), target: join(root, 'elsewhere/deep') };
}

describe('hubosDependency: a scaffold depends on hubos the way the app did', () => {
  it('re-bases every local spec to the new folder, as file:', async () => {
    for (const spec of ['file:../hubos-1.0.0.tgz', '../hubos-1.0.0.tgz', 'link:../hubos-1.0.0.tgz']) {
      const { app: dir, target } = await app(spec);
      expect(hubosDependency(dir, target), spec).toEqual({ spec: 'file:../../hubos-1.0.0.tgz', from: 'app' });
      expect(hubosDependency(dir, join(dir, 'plugin')).spec, spec).toBe('file:../../hubos-1.0.0.tgz');
    }
    const { app: dir, target } = await app('~/hubos.tgz');
    expect(hubosDependency(dir, target).spec).toBe(`file:${relative(target, join(homedir(), 'hubos.tgz'))}`);
    const absolute = await app('file:/opt/hubos.tgz');
    expect(hubosDependency(absolute.app, absolute.target).spec).toBe(
      `file:${relative(absolute.target, '/opt/hubos.tgz')}`,
    );
  });

  it('keeps registry ranges and tags as they are, and skips a workspace: spec', async () => {
    for (const spec of ['^1.2.0', 'latest', 'npm:hubos@^1']) {
      const { app: dir, target } = await app(spec);
      expect(hubosDependency(dir, target)).toEqual({ spec, from: 'app' });
    }
    const { app: dir, target } = await app('workspace:*');
    expect(hubosDependency(dir, target).from).not.toBe('app');
  });

  it("with no app depending on hubos, falls back to this hubos's version", async () => {
    const dir = await tempDir('hubos-dep-');
    const found = hubosDependency(dir, dir);
    // From the sources, a tarball packed beside them wins (npm run tarball); else the registry range.
    if (found.from === 'tarball') expect(found.spec).toMatch(/^file:.*hubos-\d+\.\d+\.\d+\.tgz$/);
    else expect(found).toEqual({ spec: `^${hubosVersion()}`, from: 'registry' });
  });
});
