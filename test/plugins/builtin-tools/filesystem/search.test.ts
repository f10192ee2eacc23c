import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mkfifo, workspace } from './helpers.ts';

describe('filesystem_search', () => {
  it('finds regex matches with file, line number and line', async () => {
    const ws = await workspace();
    await ws.write({
      'src/a.ts': 'const a = 1;\nfunction foo() {}\n',
      'src/b.ts': 'export function bar() {}\r\n',
      'notes.md': 'nothing here\n',
    });
    expect(await ws.ok('filesystem_search', { pattern: 'function \\w+' })).toEqual({
      matches: [
        { file: 'src/a.ts', line: 2, text: 'function foo() {}' },
        { file: 'src/b.ts', line: 1, text: 'export function bar() {}' },
      ],
      truncated: false,
      files_searched: 3,
      files_skipped: 0,
    });
  });

  it('searches for literal text when asked', async () => {
    const ws = await workspace();
    await ws.write({ 'a.txt': 'cost: $5 (approx.)\ncost: 5\n' });
    const out = await ws.ok('filesystem_search', { pattern: '$5 (approx.)', literal: true });
    expect(out.matches).toEqual([{ file: 'a.txt', line: 1, text: 'cost: $5 (approx.)' }]);
  });

  it('explains an invalid regular expression', async () => {
    const ws = await workspace();
    expect(await ws.fails('filesystem_search', { pattern: 'foo(' })).toContain(
      'invalid regular expression "foo(":',
    );
    expect(await ws.fails('filesystem_search', { pattern: 'foo(' })).toContain('set literal: true');
  });

  it('reads a leading (?i) as case-insensitive', async () => {
    const ws = await workspace();
    await ws.write({ 'a.txt': 'Hello\n' });
    expect((await ws.ok('filesystem_search', { pattern: '(?i)hello' })).matches).toHaveLength(1);
    expect((await ws.ok('filesystem_search', { pattern: 'hello' })).matches).toHaveLength(0);
  });

  it('filters files by glob: by name at any depth, or by path below the searched folder', async () => {
    const ws = await workspace();
    await ws.write({ 'a.ts': 'hit', 'a.md': 'hit', 'src/deep/b.ts': 'hit', 'src/c.md': 'hit' });
    const files = async (input: object) =>
      (await ws.ok('filesystem_search', { pattern: 'hit', ...input })).matches.map(
        (m: { file: string }) => m.file,
      );
    expect(await files({ glob: '*.ts' })).toEqual(['a.ts', 'src/deep/b.ts']);
    expect(await files({ glob: 'src/**/*.md' })).toEqual(['src/c.md']);
    expect(await files({ path: 'src', glob: 'deep/*.ts' })).toEqual(['src/deep/b.ts']);
    expect(await files({ path: 'src' })).toEqual(['src/c.md', 'src/deep/b.ts']);
  });

  it('searches a single file when path names one', async () => {
    const ws = await workspace();
    await ws.write({ 'a.txt': 'x\nhit\n', 'b.txt': 'hit' });
    expect((await ws.ok('filesystem_search', { pattern: 'hit', path: 'a.txt' })).matches).toEqual([
      { file: 'a.txt', line: 2, text: 'hit' },
    ]);
  });

  it('stops at max_results and says so; the config caps max_results', async () => {
    const ws = await workspace({ maxSearchResults: 5 });
    await ws.write({ 'a.txt': 'hit\n'.repeat(10), 'b.txt': 'hit\n' });
    const out = await ws.ok('filesystem_search', { pattern: 'hit', max_results: 3 });
    expect(out.matches).toHaveLength(3);
    expect(out.truncated).toBe(true);
    expect((await ws.ok('filesystem_search', { pattern: 'hit' })).matches).toHaveLength(5); // default = the cap
    expect(await ws.call('filesystem_search', { pattern: 'hit', max_results: 6 })).toMatchObject({
      ok: false,
      error: { code: 'TOOL_INPUT_INVALID' },
    });
    const few = await ws.ok('filesystem_search', { pattern: 'hit', path: 'b.txt' });
    expect(few).toMatchObject({ truncated: false, matches: [{ file: 'b.txt', line: 1 }] });
  });

  it('skips binary files, oversized files, FIFOs and symlinks', async () => {
    const ws = await workspace({ maxSearchFileBytes: 100 });
    await ws.write({
      'bin.dat': Buffer.concat([Buffer.from('hit'), Buffer.from([0, 1, 2])]),
      'big.txt': `hit${' '.repeat(200)}`,
      'ok.txt': 'hit',
    });
    mkfifo(join(ws.root, 'pipe'));
    await symlink('ok.txt', join(ws.root, 'link.txt'));
    const out = await ws.ok('filesystem_search', { pattern: 'hit' });
    expect(out.matches).toEqual([{ file: 'ok.txt', line: 1, text: 'hit' }]);
    expect(out).toMatchObject({ files_searched: 1, files_skipped: 2 });
  });

  it('cuts very long matched lines', async () => {
    const ws = await workspace();
    await writeFile(join(ws.root, 'min.js'), `hit${'x'.repeat(10_000)}`);
    const [match] = (await ws.ok('filesystem_search', { pattern: 'hit' })).matches;
    expect(match.text).toHaveLength(501);
    expect(match.text.endsWith('…')).toBe(true);
  });

  it('names a missing path plainly', async () => {
    const ws = await workspace();
    expect(await ws.fails('filesystem_search', { pattern: 'x', path: 'nope' })).toContain(
      'no such file or directory: nope',
    );
  });
});
