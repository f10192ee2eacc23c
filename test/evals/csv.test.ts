import { describe, expect, it } from 'vitest';
import { CsvSyntaxError, parseCsv } from '../../core/evals/csv.ts';

const cells = (text: string) => parseCsv(text).map((row) => row.cells);

describe('parseCsv (RFC 4180)', () => {
  it('splits cells at commas and rows at LF or CRLF, each row with its line', () => {
    expect(parseCsv('a,b\r\n1,2\n3,4')).toEqual([
      { cells: ['a', 'b'], line: 1 },
      { cells: ['1', '2'], line: 2 },
      { cells: ['3', '4'], line: 3 },
    ]);
  });

  it('reads quoted cells: commas, escaped quotes, and line breaks inside them', () => {
    const rows = parseCsv('id,input\n1,"Hello, ""world"""\n2,"two\r\nlines"\n3,after\n');
    expect(rows.map((row) => row.cells)).toEqual([
      ['id', 'input'],
      ['1', 'Hello, "world"'],
      ['2', 'two\r\nlines'],
      ['3', 'after'],
    ]);
    // A row after a quoted line break starts on the line it is on.
    expect(rows[3]?.line).toBe(5);
  });

  it('keeps empty cells, skips blank lines and a BOM', () => {
    expect(cells('\uFEFFa,,c\n\n,\n""\n')).toEqual([['a', '', 'c'], ['', ''], ['']]);
  });

  it('says where a quote is unclosed, stray, or followed by text', () => {
    const problem = (text: string) => {
      try {
        parseCsv(text);
      } catch (error) {
        expect(error).toBeInstanceOf(CsvSyntaxError);
        return `${(error as CsvSyntaxError).line}: ${(error as Error).message}`;
      }
      throw new Error('no error');
    };
    expect(problem('a\n"open,\nb')).toMatch(/^2: a quoted cell is not closed/);
    expect(problem('a\nsay "hi"')).toMatch(/^2: a quote inside an unquoted cell/);
    expect(problem('a\n"x"y')).toMatch(/^2: text after a quoted cell's closing quote/);
  });
});
