import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspace } from './helpers.ts';

describe('filesystem_read', () => {
  it('reads a text file, relative to the workspace root', async () => {
    const ws = await workspace();
    await ws.write({ 'notes/a.txt': 'one\ntwo\nthree\n' });
    expect(await ws.ok('filesystem_read', { path: 'notes/a.txt' })).toEqual({
      path: 'notes/a.txt',
      size: 14,
      content: 'one\ntwo\nthree\n',
      start_line: 1,
      end_line: 3,
      total_lines: 3,
      truncated: false,
    });
  });

  it('normalizes the path it reports', async () => {
    const ws = await workspace();
    await ws.write({ 'notes/a.txt': 'x' });
    const out = await ws.ok('filesystem_read', { path: './notes/../notes//a.txt' });
    expect(out.path).toBe('notes/a.txt');
    expect(await ws.ok('filesystem_read', { path: join(ws.root, 'notes/a.txt') })).toMatchObject({
      content: 'x',
    });
  });

  it('returns a window of lines with a 1-based offset and a limit, and where to go on', async () => {
    const ws = await workspace();
    await ws.write({ 'a.txt': 'l1\nl2\nl3\nl4\nl5' });
    expect(await ws.ok('filesystem_read', { path: 'a.txt', offset: 2, limit: 2 })).toMatchObject({
      content: 'l2\nl3\n',
      start_line: 2,
      end_line: 3,
      truncated: false,
      next_offset: 4,
    });
    const tail = await ws.ok('filesystem_read', { path: 'a.txt', offset: 4 });
    expect(tail).toMatchObject({ content: 'l4\nl5', start_line: 4, end_line: 5, total_lines: 5 });
    expect(tail).not.toHaveProperty('next_offset');
    const last = await ws.ok('filesystem_read', { path: 'a.txt', offset: 5, limit: 10 });
    expect(last).toMatchObject({ content: 'l5', end_line: 5, total_lines: 5 });
  });

  it('says when the offset is past the end of the file', async () => {
    const ws = await workspace();
    await ws.write({ 'a.txt': 'l1\nl2\n' });
    expect(await ws.fails('filesystem_read', { path: 'a.txt', offset: 3 })).toContain(
      'offset 3 is past the end of a.txt (2 lines)',
    );
  });

  it('reads an empty file', async () => {
    const ws = await workspace();
    await ws.write({ 'empty.txt': '' });
    expect(await ws.ok('filesystem_read', { path: 'empty.txt' })).toMatchObject({
      content: '',
      total_lines: 0,
      end_line: 0,
      truncated: false,
    });
  });

  it('caps the bytes returned and marks the cut clearly', async () => {
    const ws = await workspace({ maxReadBytes: 10 });
    await ws.write({ 'a.txt': 'abcd\nefgh\nijkl\n' });
    const out = await ws.ok('filesystem_read', { path: 'a.txt' });
    expect(out).toMatchObject({ truncated: true, end_line: 2, next_offset: 3 });
    expect(out.content).toBe(
      'abcd\nefgh\n[truncated: the 10-byte limit was reached after line 2; call filesystem_read with offset 3 to read on]',
    );
    const rest = await ws.ok('filesystem_read', { path: 'a.txt', offset: out.next_offset });
    expect(rest).toMatchObject({ content: 'ijkl\n', truncated: false, total_lines: 3 });
  });

  it('shows the start of a single line longer than the cap, without splitting a character', async () => {
    const ws = await workspace({ maxReadBytes: 8 });
    await ws.write({ 'a.txt': 'ééééé\nnext\n' }); // 2 bytes per é: 8 bytes cut after 4 of them
    const out = await ws.ok('filesystem_read', { path: 'a.txt' });
    expect(out.content.startsWith('éééé\n[truncated: line 1 is longer than the 8-byte limit')).toBe(true);
    expect(out).toMatchObject({ truncated: true, end_line: 1, next_offset: 2 });
    const odd = await workspace({ maxReadBytes: 7 });
    await odd.write({ 'a.txt': 'ééééé\n' });
    expect((await odd.ok('filesystem_read', { path: 'a.txt' })).content).toMatch(/^ééé\n\[truncated/);
  });

  it('reads a window deep into a file bigger than its read chunks', async () => {
    const ws = await workspace({ maxReadBytes: 1024 });
    await ws.write({ 'big.txt': `${'x'.repeat(99)}\n${'y\n'.repeat(2_000_000)}` });
    const out = await ws.ok('filesystem_read', { path: 'big.txt', offset: 1_000_000, limit: 3 });
    expect(out).toMatchObject({ content: 'y\ny\ny\n', start_line: 1_000_000, end_line: 1_000_002 });
  });

  it('refuses binary files with a clear message', async () => {
    const ws = await workspace();
    await ws.write({ 'img.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0d, 0x0a]) });
    expect(await ws.fails('filesystem_read', { path: 'img.png' })).toContain(
      'binary file: img.png (7 bytes); filesystem_read reads text files only',
    );
  });

  it('reads UTF-8 text with non-ASCII characters', async () => {
    const ws = await workspace();
    await ws.write({ 'ü/日本.txt': 'héllo 世界\n' });
    expect(await ws.ok('filesystem_read', { path: 'ü/日本.txt' })).toMatchObject({ content: 'héllo 世界\n' });
  });

  it('names a missing file and a folder plainly', async () => {
    const ws = await workspace();
    await ws.write({ 'notes/x.txt': '' });
    expect(await ws.fails('filesystem_read', { path: 'notes/a.txt' })).toBe(
      'tool "filesystem_read" failed: no such file: notes/a.txt',
    );
    expect(await ws.fails('filesystem_read', { path: 'notes' })).toContain('is a directory: notes');
    expect(await ws.fails('filesystem_read', { path: '.' })).toContain('is a directory: .');
    expect(await ws.fails('filesystem_read', { path: 'notes/x.txt/y' })).toContain('not a directory');
  });

  it('follows a symlink that stays inside the workspace', async () => {
    const ws = await workspace();
    await ws.write({ 'real/a.txt': 'inside\n' });
    await symlink('real/a.txt', join(ws.root, 'link.txt'));
    await symlink('real', join(ws.root, 'dirlink'));
    await symlink('link.txt', join(ws.root, 'chain.txt'));
    expect(await ws.ok('filesystem_read', { path: 'link.txt' })).toMatchObject({
      path: 'link.txt',
      content: 'inside\n',
    });
    expect(await ws.ok('filesystem_read', { path: 'dirlink/a.txt' })).toMatchObject({ content: 'inside\n' });
    expect(await ws.ok('filesystem_read', { path: 'chain.txt' })).toMatchObject({ content: 'inside\n' });
  });

  it('rejects invalid input before reading anything', async () => {
    const ws = await workspace();
    const result = await ws.call('filesystem_read', { path: 'a.txt', offset: 0 });
    expect(result).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
    expect(await ws.call('filesystem_read', { path: 'a.txt', extra: 1 })).toMatchObject({
      ok: false,
      error: { code: 'TOOL_INPUT_INVALID' },
    });
  });
});
