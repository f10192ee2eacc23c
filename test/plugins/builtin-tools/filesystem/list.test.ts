import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mkfifo, workspace } from './helpers.ts';

describe('filesystem_list', () => {
  it('lists the root by default, sorted, with types and file sizes', async () => {
    const ws = await workspace();
    await ws.write({ 'b.txt': 'hello', 'a/inner.txt': 'x' });
    await symlink('b.txt', join(ws.root, 'c-link'));
    mkfifo(join(ws.root, 'pipe'));
    expect(await ws.ok('filesystem_list', {})).toEqual({
      path: '.',
      entries: [
        { path: 'a', type: 'directory' },
        { path: 'b.txt', type: 'file', size: 5 },
        { path: 'c-link', type: 'symlink', target: 'b.txt' },
        { path: 'pipe', type: 'fifo' },
      ],
      truncated: false,
    });
  });

  it('lists a sub-folder with paths relative to the workspace root', async () => {
    const ws = await workspace();
    await ws.write({ 'src/lib/a.ts': '', 'src/b.ts': '' });
    const out = await ws.ok('filesystem_list', { path: 'src' });
    expect(out.path).toBe('src');
    expect(out.entries.map((e: { path: string }) => e.path)).toEqual(['src/b.ts', 'src/lib']);
  });

  it('recurses depth-first down to the depth limit', async () => {
    const ws = await workspace();
    await ws.write({ 'a/b/c/d.txt': '', 'a/x.txt': '', 'z.txt': '' });
    const paths = async (input: object) =>
      (await ws.ok('filesystem_list', input)).entries.map((e: { path: string }) => e.path);
    expect(await paths({ recursive: true })).toEqual([
      'a',
      'a/b',
      'a/b/c',
      'a/b/c/d.txt',
      'a/x.txt',
      'z.txt',
    ]);
    expect(await paths({ recursive: true, depth: 2 })).toEqual(['a', 'a/b', 'a/x.txt', 'z.txt']);
    expect(await paths({ depth: 3 })).toEqual(['a', 'z.txt']); // depth applies only with recursive
  });

  it('stops at the entry cap and says so', async () => {
    const ws = await workspace({ maxListEntries: 3 });
    await ws.write({ a: '', b: '', c: '', d: '', e: '' });
    const out = await ws.ok('filesystem_list', {});
    expect(out.entries).toHaveLength(3);
    expect(out.truncated).toBe(true);
    const exact = await workspace({ maxListEntries: 3 });
    await exact.write({ a: '', b: '', c: '' });
    expect((await exact.ok('filesystem_list', {})).truncated).toBe(false);
  });

  it('reports symlinks as such and never descends into them', async () => {
    const ws = await workspace();
    await ws.write({ 'real/in.txt': '' });
    await symlink('real', join(ws.root, 'inner'));
    await symlink(ws.outside, join(ws.root, 'outer'));
    const out = await ws.ok('filesystem_list', { recursive: true });
    expect(out.entries).toEqual([
      { path: 'inner', type: 'symlink', target: 'real' },
      { path: 'outer', type: 'symlink', target: ws.outside },
      { path: 'real', type: 'directory' },
      { path: 'real/in.txt', type: 'file', size: 0 },
    ]);
  });

  it('lists a folder symlink inside the workspace when asked for it by name', async () => {
    const ws = await workspace();
    await ws.write({ 'real/in.txt': '' });
    await symlink('real', join(ws.root, 'inner'));
    expect((await ws.ok('filesystem_list', { path: 'inner' })).entries).toEqual([
      { path: 'inner/in.txt', type: 'file', size: 0 },
    ]);
  });

  it('names a missing folder and a file plainly', async () => {
    const ws = await workspace();
    await ws.write({ 'a.txt': '' });
    expect(await ws.fails('filesystem_list', { path: 'nope' })).toContain('no such directory: nope');
    expect(await ws.fails('filesystem_list', { path: 'a.txt' })).toContain(
      'not a directory: a.txt (use filesystem_read to read a file)',
    );
  });

  it('bounds the depth input', async () => {
    const ws = await workspace();
    expect(await ws.call('filesystem_list', { recursive: true, depth: 1000 })).toMatchObject({
      ok: false,
      error: { code: 'TOOL_INPUT_INVALID' },
    });
  });
});
