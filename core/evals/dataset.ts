import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorMessage, HubosError } from '../errors.ts';
import { canonicalJson } from './canonical-json.ts';
import { csvCases } from './dataset-csv.ts';
import { type CaseSource, datasetError } from './dataset-error.ts';
import { checkScorerSpecs, checkThresholds, kind, validateCase } from './dataset-validate.ts';
import type { Dataset, EvalCase, ScorerSpec } from './experiment.ts';
import { MAX_CASES } from './experiment-store.ts';

/** A dataset as written in code (a module's `default`, or `dataset()`'s argument). */
export interface DatasetDefinition {
  name?: string;
  cases: EvalCase[];
  thresholds?: Record<string, number>;
  scorers?: ScorerSpec[];
}

const EXTENSIONS = ['.jsonl', '.csv', '.json', '.ts', '.mts', '.js', '.mjs'];
const DEFINITION_KEYS = ['name', 'cases', 'thresholds', 'scorers'];

/** Types a dataset written in a module (`export default defineDataset({ cases: [...] })`). */
export function defineDataset<const D extends DatasetDefinition | EvalCase[]>(definition: D): D {
  return definition;
}

/** An inline dataset (named `inline` unless it names itself): validated and versioned like a file's. */
export function dataset(definition: DatasetDefinition | EvalCase[]): Dataset {
  return fromDefinition(definition, { path: undefined }, 'inline');
}

/**
 * Reads a dataset file: `.jsonl` (a case a line; blank lines skipped), `.csv` (a header row, then
 * a case a row), `.json` (`{ name?, thresholds?, scorers?, cases }` or a list of cases), or a
 * module (`.ts`, `.js`, `.mjs`) whose default export is a dataset or a list of cases.
 * Throws DATASET_INVALID naming the file, line and field of the first problem.
 */
export async function loadDataset(path: string, cwd = process.cwd()): Promise<Dataset> {
  const file = resolve(cwd, path);
  const ext = extname(file).toLowerCase();
  if (!EXTENSIONS.includes(ext))
    throw datasetError({ file }, undefined, `a dataset is a ${EXTENSIONS.join(', ')} file`);
  const name = basename(file, extname(file));
  if (ext === '.ts' || ext === '.mts' || ext === '.js' || ext === '.mjs') return fromModule(file, name);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new HubosError('DATASET_INVALID', `cannot read dataset ${file}: ${errorMessage(error)}`, {
      details: { file },
    });
  }
  if (ext === '.json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw datasetError({ file }, undefined, `is not valid JSON (${errorMessage(error)})`);
    }
    return { ...fromDefinition(parsed, { file }, name), file };
  }
  const rows = ext === '.csv' ? csvCases(text, file) : jsonlCases(text, file);
  const cases = checkedCases(
    rows.map(({ value, line }) => ({ value, source: { file, line } })),
    file,
  );
  return { name, version: datasetVersion(cases), cases, file };
}

/** `sha256:` and 16 hex digits of the cases' canonical JSON: the same cases, the same version. */
export function datasetVersion(cases: readonly EvalCase[]): string {
  return `sha256:${createHash('sha256').update(canonicalJson(cases)).digest('hex').slice(0, 16)}`;
}

function jsonlCases(text: string, file: string): { value: unknown; line: number }[] {
  const out: { value: unknown; line: number }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i === 0 ? raw.replace(/^\uFEFF/, '') : raw;
    if (line.trim() === '') return;
    // Counted before parsing: a file of millions of lines is refused without holding them all as objects.
    if (out.length === MAX_CASES)
      throw datasetError(
        { file },
        undefined,
        `has more than ${MAX_CASES} cases; at most ${MAX_CASES}: split it`,
      );
    try {
      out.push({ value: JSON.parse(line), line: i + 1 });
    } catch (error) {
      throw datasetError(
        { file, line: i + 1 },
        undefined,
        `is not valid JSON (${errorMessage(error)}): each line holds one case as a JSON object`,
      );
    }
  });
  return out;
}

async function fromModule(file: string, name: string): Promise<Dataset> {
  let module: { default?: unknown };
  try {
    module = await import(pathToFileURL(file).href);
  } catch (error) {
    throw new HubosError('DATASET_INVALID', `cannot load dataset module ${file}: ${errorMessage(error)}`, {
      cause: error,
      details: { file },
    });
  }
  if (module.default === undefined)
    throw datasetError(
      { file },
      'default',
      'the module has no default export: export default defineDataset({ cases: [...] })',
    );
  return { ...fromDefinition(module.default, { file }, name), file };
}

function fromDefinition(value: unknown, source: CaseSource, fallbackName: string): Dataset {
  const definition = Array.isArray(value) ? { cases: value } : value;
  if (typeof definition !== 'object' || definition === null)
    throw datasetError(
      source,
      undefined,
      `a dataset is { name?, thresholds?, scorers?, cases: [...] } or a list of cases, got ${kind(value)}`,
    );
  const fields = definition as Record<string, unknown>;
  for (const key of Object.keys(fields))
    if (!DEFINITION_KEYS.includes(key))
      throw datasetError(source, key, `unknown field (a dataset has: ${DEFINITION_KEYS.join(', ')})`);
  if (!Array.isArray(fields.cases))
    throw datasetError(source, 'cases', `must be a list of cases, got ${kind(fields.cases)}`);
  if (fields.name !== undefined && (typeof fields.name !== 'string' || fields.name === ''))
    throw datasetError(source, 'name', `must be a non-empty text, got ${kind(fields.name)}`);
  const cases = checkedCases(
    fields.cases.map((item, i) => ({ value: item, source: { ...source, path: `cases[${i}]` } })),
    source.file,
  );
  return {
    name: (fields.name as string | undefined) ?? fallbackName,
    version: datasetVersion(cases),
    cases,
    ...(fields.thresholds !== undefined ? { thresholds: checkThresholds(fields.thresholds, source) } : {}),
    ...(fields.scorers !== undefined ? { scorers: checkScorerSpecs(fields.scorers, source) } : {}),
  };
}

function checkedCases(items: { value: unknown; source: CaseSource }[], file: string | undefined): EvalCase[] {
  if (items.length === 0) throw datasetError({ file }, undefined, 'has no cases: add at least one');
  if (items.length > MAX_CASES)
    throw datasetError({ file }, undefined, `has ${items.length} cases; at most ${MAX_CASES}: split it`);
  const seen = new Set<string>();
  return items.map(({ value, source }, i) => {
    const checked = validateCase(value, source, i + 1);
    const id = checked.id as string;
    if (seen.has(id))
      throw datasetError(source, 'id', `"${id}" is the id of an earlier case: ids must be unique`);
    seen.add(id);
    return checked;
  });
}
