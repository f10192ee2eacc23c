import { describe, expect, it } from 'vitest';
import { workspace } from './helpers.ts';

// (a+)+$ against a run of a's that ends in "!" backtracks through 2^n splits before failing.
const EVIL = '(a+)+$';
const LINE = `${'a'.repeat(40)}!`;

describe('filesystem_search: a regular expression cannot stall the server', () => {
  it('fails a catastrophic pattern past the time limit, and the event loop keeps running meanwhile', async () => {
    const ws = await workspace({ searchRegexTimeoutMs: 300 });
    await ws.write({ 'ok.txt': 'fine\n', 'trap.txt': `${LINE}\n` });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = Date.now();
    const message = await ws.fails('filesystem_search', { pattern: EVIL });
    clearInterval(ticker);
    expect(message).toContain('took longer than 300 ms on trap.txt');
    expect(message).toContain('set literal: true');
    expect(Date.now() - started).toBeLessThan(5_000);
    // Had the match run on this thread, no timer could have fired during it.
    expect(ticks).toBeGreaterThan(10);
  });

  it('a cancelled search stops its worker at once', async () => {
    const ws = await workspace({ searchRegexTimeoutMs: 60_000 });
    await ws.write({ 'trap.txt': `${LINE}\n` });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const result = await ws.call('filesystem_search', { pattern: EVIL }, controller.signal);
    expect(result.ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a search stuck on a bad pattern does not hold up another search', async () => {
    const ws = await workspace({ searchRegexTimeoutMs: 3_000 });
    await ws.write({ 'trap.txt': `${LINE}\n`, 'sub/ok.txt': 'needle\n' });
    const stuck = ws.call('filesystem_search', { pattern: EVIL });
    const started = Date.now();
    const out = await ws.ok('filesystem_search', { pattern: 'need+le', path: 'sub' });
    expect(out.matches).toEqual([{ file: 'sub/ok.txt', line: 1, text: 'needle' }]);
    expect(Date.now() - started).toBeLessThan(2_500);
    expect((await stuck).ok).toBe(false);
  });

  it('searches normally with patterns that finish in time, across many files', async () => {
    const ws = await workspace();
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`f${String(i).padStart(2, '0')}.txt`] = `line\nmatch ${i}\n`;
    await ws.write(files);
    const out = await ws.ok('filesystem_search', { pattern: 'match \\d+', max_results: 100 });
    expect(out.matches).toHaveLength(30);
    expect(out.matches[0]).toEqual({ file: 'f00.txt', line: 2, text: 'match 0' });
  });
});
