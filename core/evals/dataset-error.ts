import { HubosError } from '../errors.ts';

/** Where in a dataset a case comes from: its file, its line (jsonl, csv) or its place (json, module). */
export interface CaseSource {
  file?: string | undefined;
  /** 1-based, for a file of one case a line or row. */
  line?: number | undefined;
  /** How the value is reached inside the file when there is no line: `cases[3]`. */
  path?: string | undefined;
}

/** DATASET_INVALID naming the file, the line (or place) and the field, with how to fix it. */
export function datasetError(source: CaseSource, field: string | undefined, problem: string): HubosError {
  const where = [
    source.file ?? 'inline dataset',
    source.line !== undefined ? `line ${source.line}` : undefined,
    source.path,
  ]
    .filter(Boolean)
    .join(' ');
  const what = field ? `"${field}": ` : '';
  return new HubosError('DATASET_INVALID', `${where}: ${what}${problem}`, {
    details: {
      ...(source.file !== undefined ? { file: source.file } : {}),
      ...(source.line !== undefined ? { line: source.line } : {}),
      ...(field !== undefined ? { field } : {}),
    },
  });
}
