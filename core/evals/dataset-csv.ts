import { didYouMean } from '../closest-name.ts';
import { CsvSyntaxError, parseCsv } from './csv.ts';
import { datasetError } from './dataset-error.ts';

const PLAIN = ['id', 'input', 'expected', 'contains', 'pattern', 'tags'];

/**
 * The raw cases of a CSV dataset, each with its line: a header row names the columns (`id`,
 * `input`, `expected` (the exact answer), `contains`, `pattern`, `tags` split at `;`,
 * `metadata.<key>`, and `expected.<key>` for other expectations, as JSON). An empty cell is no value.
 */
export function csvCases(text: string, file: string): { value: unknown; line: number }[] {
  let rows: ReturnType<typeof parseCsv>;
  try {
    rows = parseCsv(text);
  } catch (error) {
    if (error instanceof CsvSyntaxError)
      throw datasetError({ file, line: error.line }, undefined, error.message);
    throw error;
  }
  const [header, ...body] = rows;
  if (!header)
    throw datasetError(
      { file },
      undefined,
      'is empty: a CSV dataset starts with a header row such as "id,input,contains"',
    );
  const columns = header.cells.map((name) => name.trim());
  columns.forEach((name, i) => {
    if (PLAIN.includes(name) || /^(metadata|expected)\.[^.]+$/.test(name)) {
      if (columns.indexOf(name) !== i)
        throw datasetError({ file, line: header.line }, name, 'this column appears twice');
      return;
    }
    throw datasetError(
      { file, line: header.line },
      name,
      `unknown column${didYouMean(name, PLAIN)} (columns: ${PLAIN.join(', ')}, metadata.<key>, expected.<key>)`,
    );
  });
  if (!columns.includes('input'))
    throw datasetError(
      { file, line: header.line },
      'input',
      'the header has no "input" column: every case needs the user\'s message',
    );
  return body.map((row) => {
    if (row.cells.length !== columns.length)
      throw datasetError(
        { file, line: row.line },
        undefined,
        `has ${row.cells.length} cells but the header has ${columns.length} columns: quote a cell that holds a comma ("a, b")`,
      );
    return { value: rowCase(columns, row.cells), line: row.line };
  });
}

function rowCase(columns: string[], cells: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const expected: Record<string, unknown> = {};
  const metadata: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    const cell = cells[i] as string;
    if (cell === '') return;
    if (column === 'id' || column === 'input') out[column] = cell;
    else if (column === 'expected') expected.output = cell;
    else if (column === 'contains' || column === 'pattern') expected[column] = cell;
    else if (column === 'tags')
      out.tags = cell
        .split(';')
        .map((tag) => tag.trim())
        .filter(Boolean);
    else if (column.startsWith('metadata.')) metadata[column.slice('metadata.'.length)] = cell;
    else expected[column.slice('expected.'.length)] = jsonOrText(cell);
  });
  if (Object.keys(expected).length > 0) out.expected = expected;
  if (Object.keys(metadata).length > 0) out.metadata = metadata;
  return out;
}

/** A cell of JSON (`3`, `{"type":"object"}`), or the text itself when it is not JSON. */
function jsonOrText(cell: string): unknown {
  try {
    return JSON.parse(cell);
  } catch {
    return cell;
  }
}
