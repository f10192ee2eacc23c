/**
 * A hard link is the file itself: `ln outside/secret.txt workspace/notes.txt` passes every path
 * check. Files with more than one link are refused by read, skipped by search and shown without a
 * size by list, unless `readHardLinkedFiles` says the workspace's hard links are trusted.
 */
import { link, readFile, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SECRET, workspace } from './helpers.ts';

describe('hard links to a file outside the workspace', () => {
  it('filesystem_read refuses one, saying why and how to allow it', async () => {
    const ws = await workspace();
    await link(join(ws.outside, 'secret.txt'), join(ws.root, 'notes.txt'));
    const message = await ws.fails('filesystem_read', { path: 'notes.txt' });
    expect(message).toContain('refusing to read a hard-linked file (2 links): notes.txt');
    expect(message).toContain('outside the workspace');
    expect(message).toContain('readHardLinkedFiles: true');
    expect(message).not.toContain(SECRET);
  });

  it('filesystem_read refuses one reached through a symlink inside the workspace', async () => {
    const ws = await workspace();
    await link(join(ws.outside, 'secret.txt'), join(ws.root, 'notes.txt'));
    await symlink('notes.txt', join(ws.root, 'alias.txt'));
    expect(await ws.fails('filesystem_read', { path: 'alias.txt' })).toContain('hard-linked file');
  });

  it('filesystem_search skips one and says so, searching the other files', async () => {
    const ws = await workspace();
    await ws.write({ 'a.txt': `${SECRET} lookalike\n` });
    await link(join(ws.outside, 'secret.txt'), join(ws.root, 'b.txt'));
    const out = await ws.ok('filesystem_search', { pattern: SECRET });
    expect(out.matches).toEqual([{ file: 'a.txt', line: 1, text: `${SECRET} lookalike` }]);
    expect(out).toMatchObject({ files_searched: 1, files_skipped: 1, hard_links_skipped: 1 });
    expect(out.note).toContain('skipped 1 hard-linked file (b.txt)');
    expect(out.note).toContain('readHardLinkedFiles: true');
    // Literal searches run on this thread, regular expressions in the pool: both skip it.
    const literal = await ws.ok('filesystem_search', { pattern: SECRET, literal: true });
    expect(literal.matches.map((m: { file: string }) => m.file)).toEqual(['a.txt']);
  });

  it('filesystem_search refuses one named as its path, as filesystem_read does', async () => {
    const ws = await workspace();
    await link(join(ws.outside, 'secret.txt'), join(ws.root, 'b.txt'));
    expect(await ws.fails('filesystem_search', { pattern: 'SECRET', path: 'b.txt' })).toContain(
      'refusing to read a hard-linked file (2 links): b.txt',
    );
  });

  it('filesystem_list shows the name and link count, not the size', async () => {
    const ws = await workspace();
    await link(join(ws.outside, 'secret.txt'), join(ws.root, 'b.txt'));
    expect((await ws.ok('filesystem_list', {})).entries).toEqual([{ path: 'b.txt', type: 'file', links: 2 }]);
  });

  it('filesystem_write refuses one, and the outside file is unchanged', async () => {
    const ws = await workspace();
    await link(join(ws.outside, 'secret.txt'), join(ws.root, 'b.txt'));
    expect(await ws.fails('filesystem_write', { path: 'b.txt', content: 'x' })).toContain(
      'refusing to write to a hard-linked file',
    );
    expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe(`${SECRET}\n`);
  });
});

describe('hard links between two files inside the workspace', () => {
  it('follow the same rule: neither name can be read or searched, since the tools cannot tell', async () => {
    const ws = await workspace();
    await ws.write({ 'a.txt': 'shared\n' });
    await link(join(ws.root, 'a.txt'), join(ws.root, 'b.txt'));
    for (const path of ['a.txt', 'b.txt']) {
      expect(await ws.fails('filesystem_read', { path })).toContain('hard-linked file (2 links)');
    }
    const out = await ws.ok('filesystem_search', { pattern: 'shared' });
    expect(out).toMatchObject({ matches: [], files_searched: 0, files_skipped: 2, hard_links_skipped: 2 });
    expect(out.note).toContain('skipped 2 hard-linked files (a.txt, b.txt)');
  });

  it('the search note names the first five skipped files and counts the rest', async () => {
    const ws = await workspace();
    await ws.write({ 'a.txt': 'shared\n' });
    for (let n = 1; n <= 6; n++) await link(join(ws.root, 'a.txt'), join(ws.root, `b${n}.txt`));
    const out = await ws.ok('filesystem_search', { pattern: 'shared', literal: true });
    expect(out.hard_links_skipped).toBe(7);
    expect(out.note).toContain(
      'skipped 7 hard-linked files (a.txt, b1.txt, b2.txt, b3.txt, b4.txt, and 2 more)',
    );
  });

  it('a file is readable again once its other link is gone', async () => {
    const ws = await workspace();
    await ws.write({ 'a.txt': 'shared\n' });
    await link(join(ws.root, 'a.txt'), join(ws.root, 'b.txt'));
    await unlink(join(ws.root, 'b.txt'));
    expect(await ws.ok('filesystem_read', { path: 'a.txt' })).toMatchObject({ content: 'shared\n' });
    expect((await ws.ok('filesystem_search', { pattern: 'sha+red' })).matches).toHaveLength(1);
  });
});

describe('readHardLinkedFiles: true', () => {
  it('lets read and search through hard links (inside and outside alike); write stays refused', async () => {
    const ws = await workspace({ readHardLinkedFiles: true });
    await ws.write({ 'a.txt': 'shared\n' });
    await link(join(ws.root, 'a.txt'), join(ws.root, 'b.txt'));
    await link(join(ws.outside, 'secret.txt'), join(ws.root, 'c.txt'));
    expect(await ws.ok('filesystem_read', { path: 'c.txt' })).toMatchObject({ content: `${SECRET}\n` });
    expect(await ws.ok('filesystem_read', { path: 'b.txt' })).toMatchObject({ content: 'shared\n' });
    const out = await ws.ok('filesystem_search', { pattern: 'shared|SECRET' });
    expect(out).toEqual({
      matches: [
        { file: 'a.txt', line: 1, text: 'shared' },
        { file: 'b.txt', line: 1, text: 'shared' },
        { file: 'c.txt', line: 1, text: SECRET },
      ],
      truncated: false,
      files_searched: 3,
      files_skipped: 0,
    });
    expect((await ws.ok('filesystem_search', { pattern: 'SECRET', path: 'c.txt' })).matches).toHaveLength(1);
    expect((await ws.ok('filesystem_list', {})).entries).toEqual([
      { path: 'a.txt', type: 'file', size: 7, links: 2 },
      { path: 'b.txt', type: 'file', size: 7, links: 2 },
      { path: 'c.txt', type: 'file', size: SECRET.length + 1, links: 2 },
    ]);
    expect(await ws.fails('filesystem_write', { path: 'c.txt', content: 'x' })).toContain(
      'refusing to write to a hard-linked file',
    );
  });
});
