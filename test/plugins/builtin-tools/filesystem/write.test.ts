import { link, readFile, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mkfifo, SECRET, workspace } from './helpers.ts';

describe('filesystem_write', () => {
  it('creates the file and its parent folders, and reports the bytes written', async () => {
    const ws = await workspace();
    expect(await ws.ok('filesystem_write', { path: 'a/b/c.txt', content: 'héllo\n' })).toEqual({
      path: 'a/b/c.txt',
      bytes: 7,
      created: true,
      appended: false,
    });
    expect(await readFile(join(ws.root, 'a/b/c.txt'), 'utf8')).toBe('héllo\n');
    expect((await stat(join(ws.root, 'a/b'))).isDirectory()).toBe(true);
  });

  it('replaces an existing file, or appends to it', async () => {
    const ws = await workspace();
    await ws.write({ 'a.txt': 'a long first version\n' });
    expect(await ws.ok('filesystem_write', { path: 'a.txt', content: 'v2\n' })).toMatchObject({
      bytes: 3,
      created: false,
    });
    expect(await readFile(join(ws.root, 'a.txt'), 'utf8')).toBe('v2\n');
    expect(await ws.ok('filesystem_write', { path: 'a.txt', content: 'more\n', append: true })).toMatchObject(
      {
        bytes: 5,
        appended: true,
      },
    );
    expect(await readFile(join(ws.root, 'a.txt'), 'utf8')).toBe('v2\nmore\n');
    await ws.ok('filesystem_write', { path: 'new.txt', content: 'x', append: true });
    expect(await readFile(join(ws.root, 'new.txt'), 'utf8')).toBe('x');
  });

  it('writes an empty file', async () => {
    const ws = await workspace();
    expect(await ws.ok('filesystem_write', { path: 'e.txt', content: '' })).toMatchObject({ bytes: 0 });
    expect(await readFile(join(ws.root, 'e.txt'), 'utf8')).toBe('');
  });

  it('refuses to write through a symlink, even one pointing inside, and leaves the target as it was', async () => {
    const ws = await workspace();
    await ws.write({ 'real.txt': 'original' });
    await symlink('real.txt', join(ws.root, 'inner-link'));
    await symlink(join(ws.outside, 'secret.txt'), join(ws.root, 'outer-link'));
    await symlink(join(ws.outside, 'new.txt'), join(ws.root, 'dangling'));
    for (const path of ['inner-link', 'outer-link', 'dangling']) {
      expect(await ws.fails('filesystem_write', { path, content: 'pwned' })).toContain(
        `refusing to write through a symbolic link: ${path}`,
      );
    }
    expect(await readFile(join(ws.root, 'real.txt'), 'utf8')).toBe('original');
    expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe(`${SECRET}\n`);
    await expect(stat(join(ws.outside, 'new.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('writes through a folder symlink that stays inside the workspace', async () => {
    const ws = await workspace();
    await ws.write({ 'real/keep.txt': '' });
    await symlink('real', join(ws.root, 'dirlink'));
    await ws.ok('filesystem_write', { path: 'dirlink/a.txt', content: 'ok' });
    expect(await readFile(join(ws.root, 'real/a.txt'), 'utf8')).toBe('ok');
  });

  it('refuses a hard-linked file and does not empty it', async () => {
    const ws = await workspace();
    await ws.write({ 'a.txt': 'shared' });
    await link(join(ws.root, 'a.txt'), join(ws.root, 'b.txt'));
    for (const append of [false, true]) {
      expect(await ws.fails('filesystem_write', { path: 'b.txt', content: 'x', append })).toContain(
        'refusing to write to a hard-linked file (2 links): b.txt',
      );
    }
    expect(await readFile(join(ws.root, 'a.txt'), 'utf8')).toBe('shared');
  });

  it('refuses a FIFO without blocking, and a folder', async () => {
    const ws = await workspace();
    mkfifo(join(ws.root, 'pipe'));
    await ws.write({ 'dir/x': '' });
    expect(await ws.fails('filesystem_write', { path: 'pipe', content: 'x' })).toContain(
      'not a regular file: pipe',
    );
    expect(await ws.fails('filesystem_write', { path: 'dir', content: 'x' })).toContain(
      'is a directory: dir',
    );
    expect(await ws.fails('filesystem_write', { path: '.', content: 'x' })).toContain('is a directory: .');
  });

  it('fails clearly when a parent is a file', async () => {
    const ws = await workspace();
    await ws.write({ 'file.txt': '' });
    expect(await ws.fails('filesystem_write', { path: 'file.txt/a.txt', content: 'x' })).toContain(
      'not a directory: a part of file.txt/a.txt is a file',
    );
  });

  it('requires path and content', async () => {
    const ws = await workspace();
    expect(await ws.call('filesystem_write', { path: 'a.txt' })).toMatchObject({
      ok: false,
      error: { code: 'TOOL_INPUT_INVALID', message: expect.stringContaining('"content"') },
    });
  });
});
