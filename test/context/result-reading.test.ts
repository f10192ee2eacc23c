// Reading a kept result: by characters, by lines, or by a search whose regex cannot hang the process.
import { describe, expect, it } from 'vitest';
import { MAX_READ_CHARS, readChars, readLines, searchText } from '../../core/context/result-reading.ts';

const text = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n');

describe('readChars', () => {
  it('reads a range and says where it is and what follows', () => {
    expect(readChars(text, 0, 13)).toBe('[characters 0-13 of 791. More from offset 13.]\nline 1\nline 2');
    expect(readChars(text, 783, 100)).toBe('[characters 783-791 of 791. That is the end.]\nline 100');
    expect(readChars(text, 5_000)).toBe('[characters 791-791 of 791. That is the end.]\n');
  });

  it('never returns more than MAX_READ_CHARS', () => {
    const big = 'y'.repeat(MAX_READ_CHARS * 2);
    const read = readChars(big, 0, MAX_READ_CHARS * 2);
    expect(read.split('\n')[1]!.length).toBe(MAX_READ_CHARS);
  });
});

describe('readLines', () => {
  it('reads whole lines from a 1-based line', () => {
    expect(readLines(text, 99, 5)).toBe('[lines 99-100 of 100. That is the end.]\nline 99\nline 100');
    expect(readLines(text, 1, 2)).toBe('[lines 1-2 of 100. More from line 3.]\nline 1\nline 2');
    expect(readLines(text, 101)).toBe('[the result has 100 lines: line 101 is past its end]');
  });

  it('cuts one very long line and says from which offset to read on', () => {
    const long = `a\n${'z'.repeat(MAX_READ_CHARS + 10)}\nb`;
    const read = readLines(long, 2, 1);
    expect(read).toContain(`Cut at ${MAX_READ_CHARS} characters: read on from offset ${2 + MAX_READ_CHARS}`);
  });
});

describe('searchText', () => {
  it('answers within MAX_READ_CHARS however many matches and context lines are asked, saying how to see the rest', () => {
    // 3,000 lines of 1,000 characters, a match every 30th: 100 matches with 10 lines around each
    // would be over a million characters, and a read's answer goes to the model whole.
    const wide = Array.from(
      { length: 3_000 },
      (_, i) => `${i % 30 === 0 ? 'HIT' : 'row'}${'x'.repeat(997)}`,
    ).join('\n');
    const found = searchText(wide, { pattern: 'HIT', context: 10, maxMatches: 100 });
    expect(found.length).toBeLessThanOrEqual(MAX_READ_CHARS + 500);
    const shown = found.match(/\[match at offset/g)!.length;
    expect(shown).toBeGreaterThan(1);
    expect(shown).toBeLessThan(100);
    expect(found.split('\n')[0]).toBe(
      `[100 matches for "HIT". Showing the first ${shown} (${MAX_READ_CHARS} characters at most): ask fewer context lines, narrow the pattern, or read on with offset or line.]`,
    );
  });

  it('finds a literal, showing its line number, offset and context lines', () => {
    const found = searchText(text, { pattern: 'line 50', context: 1 });
    expect(found).toBe(
      '[1 matches for "line 50".]\n[match at offset 383, line 50]\n49  line 49\n50> line 50\n51  line 51',
    );
  });

  it('treats a literal as text, not as a pattern', () => {
    expect(searchText('a.b axb', { pattern: 'a.b' })).toContain('[1 matches');
    expect(searchText('(x+)+', { pattern: '(x+)+' })).toContain('[1 matches');
  });

  it('searches with a regular expression, ignoring case when asked, up to maxMatches', () => {
    const found = searchText(text, {
      pattern: 'LINE 9\\d$',
      regex: true,
      ignoreCase: true,
      context: 0,
      maxMatches: 3,
    });
    expect(found).toContain('[3+ matches');
    expect(found).toContain('90> line 90');
    expect(found).toContain('92> line 92');
    expect(found).not.toContain('93>');
    expect(searchText(text, { pattern: 'nowhere' })).toBe('[no match for "nowhere"]');
  });

  it('shows a window around a match in a line too long to show whole', () => {
    const json = `{"items":[${'{"a":1},'.repeat(50_000)}{"needle":true}]}`;
    const found = searchText(json, { pattern: 'needle' });
    expect(found).toContain('1> …');
    expect(found.length).toBeLessThan(1_000);
  });

  it('stops a pattern that backtracks without end, with an error saying what to do', () => {
    const hostile = `${'a'.repeat(50_000)}!`;
    expect(() => searchText(hostile, { pattern: '(a+)+$', regex: true })).toThrow(
      /the search took over 500 ms and was stopped: search for a literal text/,
    );
  });

  it('refuses a pattern that is not a regular expression', () => {
    expect(() => searchText(text, { pattern: '(unclosed', regex: true })).toThrow(
      /"\(unclosed" is not a valid regular expression/,
    );
  });
});
