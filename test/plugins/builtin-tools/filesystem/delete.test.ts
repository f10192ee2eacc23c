import { readFile, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mkfifo, SECRET, workspace } from './helpers.ts';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('filesystem_delete', () => {
  it('deletes a file', async () => {
    const ws = await workspace();
    await ws.write({ 'notes/a.txt': 'x' });
    expect(await ws.ok('filesystem_delete', { path: 'notes/a.txt' })).toEqual({
      path: 'notes/a.txt',
      deleted: 'file',
      removed: 1,
    });
    expect(await exists(join(ws.root, 'notes/a.txt'))).toBe(false);
    expect(await exists(join(ws.root, 'notes'))).toBe(true);
  });

  it('deletes a folder only with recursive: true', async () => {
    const ws = await workspace();
    await ws.write({ 'd/a.txt': '', 'd/sub/b.txt': '' });
    expect(await ws.fails('filesystem_delete', { path: 'd' })).toContain(
      'is a directory: d; set recursive: true to delete it and everything in it',
    );
    expect(await exists(join(ws.root, 'd/a.txt'))).toBe(true);
    expect(await ws.ok('filesystem_delete', { path: 'd', recursive: true })).toEqual({
      path: 'd',
      deleted: 'directory',
      removed: 4,
    });
    expect(await exists(join(ws.root, 'd'))).toBe(false);
  });

  it('never deletes the workspace root, however it is named', async () => {
    const ws = await workspace();
    await ws.write({ 'keep.txt': 'x', 'sub/y': '' });
    for (const path of ['.', './', 'sub/..', ws.root, `${ws.root}/`, 'sub/../.']) {
      expect(await ws.fails('filesystem_delete', { path, recursive: true })).toContain(
        'refusing to delete the workspace root',
      );
    }
    expect(await exists(join(ws.root, 'keep.txt'))).toBe(true);
  });

  it('deletes a symlink itself, never what it points to', async () => {
    const ws = await workspace();
    await symlink(ws.outside, join(ws.root, 'out-dir'));
    await symlink(join(ws.outside, 'secret.txt'), join(ws.root, 'out-file'));
    expect(await ws.ok('filesystem_delete', { path: 'out-file' })).toMatchObject({ deleted: 'symlink' });
    expect(await ws.ok('filesystem_delete', { path: 'out-dir', recursive: true })).toMatchObject({
      deleted: 'symlink',
    });
    expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe(`${SECRET}\n`);
  });

  it('recursive delete removes symlinks inside the tree without following them', async () => {
    const ws = await workspace();
    await ws.write({ 'd/a.txt': '' });
    await symlink(ws.outside, join(ws.root, 'd/out'));
    await ws.ok('filesystem_delete', { path: 'd', recursive: true });
    expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe(`${SECRET}\n`);
    expect(await exists(join(ws.root, 'd'))).toBe(false);
  });

  it('deletes a FIFO without opening it', async () => {
    const ws = await workspace();
    mkfifo(join(ws.root, 'pipe'));
    expect(await ws.ok('filesystem_delete', { path: 'pipe' })).toMatchObject({ deleted: 'fifo' });
  });

  it('names a missing path plainly', async () => {
    const ws = await workspace();
    expect(await ws.fails('filesystem_delete', { path: 'nope/a.txt' })).toBe(
      'tool "filesystem_delete" failed: no such file or directory: nope/a.txt',
    );
    expect(await ws.fails('filesystem_delete', { path: 'a.txt' })).toContain(
      'no such file or directory: a.txt',
    );
  });

  it('stops a recursive delete when the call is cancelled', async () => {
    const ws = await workspace();
    await ws.write({ 'd/a.txt': '' });
    const controller = new AbortController();
    controller.abort();
    const result = await ws.call('filesystem_delete', { path: 'd', recursive: true }, controller.signal);
    expect(result.ok).toBe(false);
    expect(await exists(join(ws.root, 'd/a.txt'))).toBe(true);
  });
});
