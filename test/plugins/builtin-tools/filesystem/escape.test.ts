/** Every tool against every way out: `..`, absolute paths, symlinks out, FIFOs and devices. */
import { readdir, readFile, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mkfifo, SECRET, type Workspace, workspace } from './helpers.ts';

const ESCAPES = ['../x', 'a/../../x', '../../etc/passwd', '/etc/passwd', '/tmp', '..', 'a/b/../../../x'];

/** Each tool called on `path` in the way that would reach the most if the path got out. */
const CALLS: [string, (path: string) => object][] = [
  ['filesystem_read', (path) => ({ path })],
  ['filesystem_write', (path) => ({ path, content: 'pwned' })],
  ['filesystem_list', (path) => ({ path, recursive: true })],
  ['filesystem_delete', (path) => ({ path, recursive: true })],
  ['filesystem_search', (path) => ({ path, pattern: 'SECRET' })],
];

async function outsideIsIntact(ws: Workspace) {
  expect(await readdir(ws.outside)).toEqual(['secret.txt']);
  expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe(`${SECRET}\n`);
}

describe('confinement', () => {
  it('refuses `..` and absolute paths outside the workspace, in every tool', async () => {
    const ws = await workspace();
    await ws.write({ 'a/b/keep.txt': '' });
    for (const [tool, input] of CALLS) {
      for (const path of ESCAPES) {
        expect(await ws.fails(tool, input(path)), `${tool} ${path}`).toContain(
          `path escapes the workspace: ${path}`,
        );
      }
      const sibling = join(ws.outside, 'secret.txt');
      expect(await ws.fails(tool, input(sibling))).toContain('paths are relative to the workspace root');
    }
    await outsideIsIntact(ws);
  });

  it('a path that only passes the root on the way stays inside', async () => {
    const ws = await workspace();
    await ws.write({ 'a/x.txt': 'in' });
    const name = ws.root.split('/').at(-1);
    expect(await ws.ok('filesystem_read', { path: `../${name}/a/x.txt` })).toMatchObject({ content: 'in' });
    expect(await ws.ok('filesystem_read', { path: 'a/../a/x.txt' })).toMatchObject({ path: 'a/x.txt' });
  });

  it('refuses file and folder symlinks that point outside, in every tool', async () => {
    const ws = await workspace();
    await symlink(join(ws.outside, 'secret.txt'), join(ws.root, 'file-out'));
    await symlink(ws.outside, join(ws.root, 'dir-out'));
    await symlink('../../', join(ws.root, 'up'));
    for (const path of ['file-out', 'dir-out/secret.txt', 'dir-out/new.txt', 'up/etc/passwd']) {
      for (const [tool, input] of CALLS) {
        if (tool === 'filesystem_delete' && path === 'file-out') continue; // deletes the link itself
        const result = await ws.call(tool, input(path));
        expect(result.ok, `${tool} ${path}`).toBe(false);
        if (!result.ok) expect(result.error.message).toMatch(/escapes the workspace|symbolic link/);
      }
    }
    for (const [tool, input] of CALLS.filter(([name]) => name !== 'filesystem_delete')) {
      const result = await ws.call(tool, input('dir-out'));
      expect(result.ok, `${tool} dir-out`).toBe(false);
    }
    await outsideIsIntact(ws);
  });

  it('walks of the whole workspace never enter symlinks that point outside', async () => {
    const ws = await workspace();
    await ws.write({ 'a/in.txt': 'SECRET? no' });
    await symlink(ws.outside, join(ws.root, 'a/dir-out'));
    await symlink(join(ws.outside, 'secret.txt'), join(ws.root, 'a/file-out'));
    const listed = await ws.ok('filesystem_list', { recursive: true, depth: 32 });
    expect(listed.entries.map((e: { path: string }) => e.path)).toEqual([
      'a',
      'a/dir-out',
      'a/file-out',
      'a/in.txt',
    ]);
    const found = await ws.ok('filesystem_search', { pattern: 'SECRET' });
    expect(found.matches).toEqual([{ file: 'a/in.txt', line: 1, text: 'SECRET? no' }]);
    await ws.ok('filesystem_delete', { path: 'a', recursive: true });
    await outsideIsIntact(ws);
  });

  it('reads of a FIFO fail at once instead of hanging', async () => {
    const ws = await workspace();
    mkfifo(join(ws.root, 'pipe'));
    const started = Date.now();
    expect(await ws.fails('filesystem_read', { path: 'pipe' })).toBe(
      'tool "filesystem_read" failed: not a regular file: pipe',
    );
    expect(await ws.fails('filesystem_search', { pattern: 'x', path: 'pipe' })).toContain(
      'not a regular file: pipe',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses device files, by path or through a symlink', async () => {
    const ws = await workspace();
    await symlink('/dev/null', join(ws.root, 'null'));
    await symlink('/dev/zero', join(ws.root, 'zero'));
    await symlink('/dev', join(ws.root, 'dev'));
    for (const path of ['null', 'zero', 'dev/zero', '/dev/zero']) {
      expect(await ws.fails('filesystem_read', { path })).toContain('path escapes the workspace');
    }
    expect(await ws.fails('filesystem_write', { path: 'null', content: 'x' })).toContain('symbolic link');
    expect((await stat('/dev/null')).isCharacterDevice()).toBe(true);
  });

  it.runIf(process.getuid?.() === 0)(
    'refuses a device node inside the workspace (needs root to make one)',
    async () => {
      const ws = await workspace();
      const { execFileSync } = await import('node:child_process');
      execFileSync('mknod', [join(ws.root, 'null'), 'c', '1', '3']);
      expect(await ws.fails('filesystem_read', { path: 'null' })).toContain('not a regular file: null');
      expect(await ws.fails('filesystem_write', { path: 'null', content: 'x' })).toContain(
        'not a regular file: null',
      );
      expect((await ws.ok('filesystem_list', {})).entries).toEqual([{ path: 'null', type: 'char-device' }]);
    },
  );

  it('refuses a NUL byte in a path', async () => {
    const ws = await workspace();
    expect(await ws.fails('filesystem_read', { path: 'a\u0000/etc/passwd' })).toContain(
      'contains a NUL byte',
    );
  });
});
