import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import type { JSONSchema as TypedJSONSchema } from 'json-schema-to-ts';
import { closestName } from './closest-name.ts';
import checkDraft07 from './draft-07-check.generated.ts';
import { cachedCheck, checkFile, keepCheck, schemaCacheEnabled } from './schema-cache.ts';

/** A JSON Schema as written by users; `as const` literals keep their types for inference. */
export type JSONSchema = TypedJSONSchema;
export type JSONSchemaObject = Exclude<JSONSchema, boolean>;

// ajv and ajv-formats (CommonJS, ~65 modules) load with the first ajv: a start that compiles
// nothing (its config checked by precompiled code, its tools compiled when first called) never loads them.
const require = createRequire(import.meta.url);
let loadedAjv: { Ajv: typeof Ajv; addFormats: (ajv: Ajv) => Ajv } | undefined;
function loadAjv(): NonNullable<typeof loadedAjv> {
  loadedAjv ??= {
    Ajv: (require('ajv') as { Ajv: typeof Ajv }).Ajv,
    addFormats: (require('ajv-formats') as { default: (ajv: Ajv) => Ajv }).default,
  };
  return loadedAjv;
}

/** The options of every ajv HubOS makes (what its compiled code depends on, with the dialect). */
const AJV_OPTIONS: Options = {
  allErrors: true,
  useDefaults: true,
  coerceTypes: false,
  strict: false,
  verbose: true,
};
/** The options as a kept check's file name takes them in. */
const OPTIONS_KEY = JSON.stringify(AJV_OPTIONS);

/**
 * One ajv per owner. Defaults are applied (`useDefaults`) and types are never coerced:
 * JSON numbers arrive as numbers, and a string "3" for an integer is an error the caller sees.
 * `verbose` puts `parentSchema` in errors, which `describeErrors` needs to list allowed properties.
 * @internal
 */
export function createAjv(draft: 'draft-07' | '2020-12' = 'draft-07', extra: Partial<Options> = {}): Ajv {
  const { Ajv, addFormats } = loadAjv();
  // The 2020-12 dialect is loaded only by an app whose schemas declare it.
  const Dialect = draft === '2020-12' ? loadAjv2020() : Ajv;
  const ajv = new Dialect({ ...AJV_OPTIONS, ...extra });
  addFormats(ajv);
  if (draft === 'draft-07' && checksAsPrecompiled(extra)) usePrecompiledMeta(ajv);
  return ajv;
}

const DRAFT_07_META = 'http://json-schema.org/draft-07/schema';

/** Options that leave the meta-schema check as it was compiled ahead of time (what the code does, not what it checks). */
const SAME_CHECK = new Set(['addUsedSchema', 'validateSchema', 'code']);
const checksAsPrecompiled = (extra: Partial<Options>) =>
  !extra.code?.source && Object.keys(extra).every((key) => SAME_CHECK.has(key));

/**
 * Checking a schema against the draft-07 meta-schema needs that meta-schema compiled, which costs
 * more than all else a start does with schemas: ajv is handed the same check compiled ahead of time
 * (scripts/draft-07-check.ts, made with these options). Should ajv keep its schemas elsewhere one
 * day, it compiles the meta-schema itself, as before.
 */
function usePrecompiledMeta(ajv: Ajv): void {
  const env = (ajv as unknown as { schemas?: Record<string, { validate?: unknown } | undefined> }).schemas?.[
    DRAFT_07_META
  ];
  if (env && env.validate === undefined) env.validate = checkDraft07;
}

export type { Ajv, ErrorObject, ValidateFunction };

/** ajv's `errorsText`, for errors of the precompiled check. */
function errorsText(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((error) => `data${error.instancePath} ${error.message}`).join(', ');
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

/**
 * The dialect a schema declares with `$schema`: `2020-12`, or `draft-07` (also for none).
 * @internal
 */
export function schemaDialect(schema: object): 'draft-07' | '2020-12' {
  const declared = (schema as { $schema?: unknown }).$schema;
  return typeof declared === 'string' && DRAFT_2020.test(declared) ? '2020-12' : 'draft-07';
}

/**
 * One ajv per dialect, made when first needed: schemas are compiled by the one they declare.
 * @internal
 */
export class SchemaCompilers {
  readonly #byDialect = new Map<string, Ajv>();

  /**
   * Why a schema is not valid JSON Schema of its dialect (ajv's words), or undefined when it is.
   * Draft-07, the common case, is checked by the precompiled check without making an ajv.
   */
  problemsOf(schema: object): string | undefined {
    const declared = (schema as { $schema?: unknown }).$schema;
    if (declared === undefined || (typeof declared === 'string' && DRAFT_07.test(declared))) {
      return checkDraft07(schema)
        ? undefined
        : errorsText((checkDraft07 as unknown as ValidateFunction).errors);
    }
    const ajv = this.for(schema);
    return ajv.validateSchema(schema) ? undefined : ajv.errorsText(ajv.errors);
  }

  for(schema: object): Ajv {
    const dialect = schemaDialect(schema);
    let ajv = this.#byDialect.get(dialect);
    if (!ajv) {
      // With the schema cache on, ajv keeps each check's source, which the cache writes; the
      // meta-schema check stays the precompiled one (no standalone code is made of it here).
      const keeps = schemaCacheEnabled();
      ajv = createAjv(dialect, keeps ? { code: { source: true } } : {});
      if (keeps && dialect === 'draft-07') usePrecompiledMeta(ajv);
      this.#byDialect.set(dialect, ajv);
    }
    return ajv;
  }

  /**
   * The schema's check: the one an earlier start kept (with the schema cache on), else compiled,
   * and kept for the next. Throws what ajv throws for a schema that does not compile.
   */
  compile(schema: object): ValidateFunction {
    const file = checkFile(`${schemaDialect(schema)} ${OPTIONS_KEY}`, schema);
    const kept = file === undefined ? undefined : cachedCheck(file);
    if (kept) return kept;
    const ajv = this.for(schema);
    const validate = ajv.compile(schema);
    if (file !== undefined) keepCheck(file, ajv, validate);
    return validate;
  }
}

let ajv2020: typeof Ajv | undefined;
function loadAjv2020(): typeof Ajv {
  ajv2020 ??= (require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv }).Ajv2020;
  return ajv2020;
}

/**
 * How problems name their place: a tool's input says `"days"` and `property`; a plugin's options
 * say `option "sides"`, and suggest the closest name for an unknown one.
 * @internal
 */
export interface ProblemWords {
  /** The whole value, when the problem is at its root: `the input`. */
  whole: string;
  /** What a key is called: `property`. */
  key: string;
  /** Put the key word before a path (`option "sides"`) rather than the path alone (`"days"`). */
  keyBeforePath?: boolean;
  /** For an unknown key, name the closest allowed one (`did you mean "greeting"?`) when there is one. */
  suggest?: boolean;
}

/** @internal */
export const INPUT_WORDS: ProblemWords = { whole: 'the input', key: 'property' };

/**
 * Turns ajv errors into sentences naming the field, what was expected and what was given.
 * @internal
 */
export function describeErrors(
  errors: readonly ErrorObject[] | null | undefined,
  data: unknown,
  words: ProblemWords = INPUT_WORDS,
): string[] {
  const lines = (errors ?? []).filter((e) => e.keyword !== 'if').map((e) => describeError(e, data, words));
  return capProblems(lines);
}

/** At most this many problems are told: a bad array of 100,000 items must not make a 10 MB error. */
const MAX_PROBLEMS = 20;

/** The distinct problems, the first MAX_PROBLEMS of them and how many more there are. @internal */
export function capProblems(lines: readonly string[]): string[] {
  const distinct = [...new Set(lines)];
  if (distinct.length <= MAX_PROBLEMS) return distinct;
  return [
    ...distinct.slice(0, MAX_PROBLEMS),
    `and ${distinct.length - MAX_PROBLEMS} more problems like these`,
  ];
}

function describeError(error: ErrorObject, data: unknown, words: ProblemWords): string {
  const segments = pointerToSegments(error.instancePath);
  const at = segmentsToPath(segments);
  const where = sayWhere(at, words);
  const params = error.params as Record<string, unknown>;
  // A `writeOnly` value (a header that carries an API key) is named by its type, never shown.
  const secret = (error.parentSchema as { writeOnly?: unknown } | undefined)?.writeOnly === true;
  const given = () => {
    const value = valueAtPath(data, segments);
    if (!secret) return describeValue(value);
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return `${kind} (its value not shown: a secret)`;
  };
  switch (error.keyword) {
    case 'required':
      return sayMissing(joinPath(at, String(params.missingProperty)), words);
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      return sayUnknown(joinPath(at, extra), extra, Object.keys(propertiesOf(error.parentSchema)), words);
    }
    case 'type':
      return `${where} must be ${String(params.type)}, got ${given()}`;
    case 'enum':
      return `${where} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, got ${given()}`;
    case 'const':
      return `${where} must be ${JSON.stringify(params.allowedValue)}, got ${given()}`;
    default:
      return `${where} ${error.message ?? 'is invalid'}, got ${given()}`;
  }
}

/** `"days"`, `option "sides"`, or the whole value (`the input`) at the root. @internal */
export function sayWhere(path: string, words: ProblemWords): string {
  if (path === '') return words.whole;
  return words.keyBeforePath ? `${words.key} "${path}"` : `"${path}"`;
}

/** @internal */
export function sayMissing(path: string, words: ProblemWords): string {
  return `missing required ${words.key} "${path}"`;
}

/** `unknown property "x" (allowed: a, b)`, or `(did you mean "a"?)` where words ask for suggestions. @internal */
export function sayUnknown(
  path: string,
  key: string,
  allowed: readonly string[],
  words: ProblemWords,
): string {
  const closest = words.suggest ? closestName(key, allowed) : undefined;
  const hint =
    closest !== undefined
      ? ` (did you mean "${closest}"?)`
      : allowed.length > 0
        ? ` (allowed: ${allowed.join(', ')})`
        : '';
  return `unknown ${words.key} "${path}"${hint}`;
}

/** @internal */
export function sayOneOf(where: string, allowed: readonly unknown[], given: string): string {
  const values = allowed.map((v) => JSON.stringify(v));
  const expected = values.length === 1 ? values[0] : `one of ${values.join(', ')}`;
  return `${where} must be ${expected}, got ${given}`;
}

/** The `properties` of a schema object, or none. @internal */
export function propertiesOf(schema: unknown): Record<string, unknown> {
  if (typeof schema !== 'object' || schema === null) return {};
  const properties = (schema as { properties?: unknown }).properties;
  return typeof properties === 'object' && properties !== null ? (properties as Record<string, unknown>) : {};
}

/** A path into a value: keys and array indexes. @internal */
export type PathSegment = string | number;

function pointerToSegments(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** `['servers', 0, 'port']` -> `servers[0].port` @internal */
export function segmentsToPath(segments: readonly PathSegment[]): string {
  return segments.reduce<string>(
    (path, part) => (typeof part === 'number' ? `${path}[${part}]` : path ? `${path}.${part}` : part),
    '',
  );
}

/** @internal */
export function joinPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** The value at a path, or undefined where the path leads nowhere. @internal */
export function valueAtPath(data: unknown, segments: readonly PathSegment[]): unknown {
  let current: unknown = data;
  for (const key of segments) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A short, model-readable rendering of a value: `string "3"`, `number 4`, `array`, `null`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string': {
      const text = value.length > 40 ? `${value.slice(0, 40)}…` : value;
      return `string ${JSON.stringify(text)}`;
    }
    case 'number':
      return Number.isInteger(value) ? `integer ${value}` : `number ${value}`;
    case 'boolean':
      return `boolean ${value}`;
    case 'undefined':
      return 'nothing';
    case 'function':
      return 'a function';
    default:
      return 'an object';
  }
}
