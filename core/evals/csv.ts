/** One row of a CSV file: its cells, and the line (from 1) it starts on. */
export interface CsvRow {
  cells: string[];
  line: number;
}

/** Why a CSV file could not be read, and the line (from 1) where. */
export class CsvSyntaxError extends Error {
  readonly line: number;

  constructor(message: string, line: number) {
    super(message);
    this.line = line;
  }
}

/** An unquoted cell: up to a comma, a line's end or a quote (which has no place in it). */
const UNQUOTED = /[^,\n\r"]*/y;

/**
 * Reads CSV as RFC 4180 says: cells split by commas, rows by CRLF or LF; a quoted cell may hold
 * commas, line breaks and quotes (doubled: `""`). A BOM is skipped; a blank line is no row.
 */
export function parseCsv(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (i < text.length) {
    const start = line;
    const cells: string[] = [];
    let quoted = false;
    for (;;) {
      let cell = '';
      if (text[i] === '"') {
        quoted = true;
        const opened = line;
        i++;
        // Up to each quote at once: a cell of 50 MB is copied in slices, not a character at a time.
        for (;;) {
          const quote = text.indexOf('"', i);
          if (quote === -1) throw new CsvSyntaxError('a quoted cell is not closed: end it with a "', opened);
          const part = text.slice(i, quote);
          for (let at = part.indexOf('\n'); at !== -1; at = part.indexOf('\n', at + 1)) line++;
          cell += part;
          if (text[quote + 1] === '"') {
            cell += '"';
            i = quote + 2;
            continue;
          }
          i = quote + 1;
          break;
        }
        const after = text[i];
        if (after !== undefined && after !== ',' && after !== '\n' && after !== '\r')
          throw new CsvSyntaxError(
            'text after a quoted cell\'s closing quote: quote the whole cell and double the quotes inside it ("say ""hi""")',
            line,
          );
      } else {
        UNQUOTED.lastIndex = i;
        cell = (UNQUOTED.exec(text) as RegExpExecArray)[0];
        i += cell.length;
        if (text[i] === '"')
          throw new CsvSyntaxError(
            'a quote inside an unquoted cell: quote the whole cell and double the quotes inside it ("say ""hi""")',
            line,
          );
      }
      cells.push(cell);
      if (text[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    // The row's end: CRLF, LF, a lone CR, or the end of the text.
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    line++;
    if (quoted || !(cells.length === 1 && cells[0] === '')) rows.push({ cells, line: start });
  }
  return rows;
}
