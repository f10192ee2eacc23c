import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { errorMessage } from './errors.ts';
import {
  capProblems,
  describeValue,
  joinPath,
  type PathSegment,
  type ProblemWords,
  propertiesOf,
  sayMissing,
  sayOneOf,
  sayUnknown,
  sayWhere,
  segmentsToPath,
  valueAtPath,
} from './json-schema.ts';

export type { StandardJSONSchemaV1, StandardSchemaV1 };

/**
 * True for a Standard Schema (zod, valibot, ArkType…): a value with `~standard.validate`.
 * ArkType's types are functions, hence not only objects.
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return (
    typeof props === 'object' &&
    props !== null &&
    (props as { version?: unknown }).version === 1 &&
    typeof (props as { validate?: unknown }).validate === 'function'
  );
}

/**
 * The dialects derived schemas are asked in, with the `$schema` that says so: 2020-12 first (the
 * current one, what MCP assumes), draft-07 for a library that gives only that.
 */
const TARGETS = [
  { target: 'draft-2020-12', uri: 'https://json-schema.org/draft/2020-12/schema' },
  { target: 'draft-07', uri: 'http://json-schema.org/draft-07/schema#' },
] as const;

/** A derived JSON Schema, or why there is none (a sentence that says how to fix it). */
export type DerivedJSONSchema = { ok: true; schema: Record<string, unknown> } | { ok: false; reason: string };

/**
 * The JSON Schema (2020-12, else draft-07) of a Standard Schema's `input` or `output`, from its
 * Standard JSON Schema interface (`~standard.jsonSchema`).
 * @internal
 */
export function deriveJSONSchema(schema: StandardSchemaV1, io: 'input' | 'output'): DerivedJSONSchema {
  const props = schema['~standard'] as Partial<StandardJSONSchemaV1.Props>;
  const vendor = String(props.vendor ?? 'unknown');
  const converter = props.jsonSchema;
  if (typeof converter?.[io] !== 'function') {
    return {
      ok: false,
      reason:
        `it is a Standard Schema of "${vendor}" without the Standard JSON Schema interface (~standard.jsonSchema), ` +
        'so there is no JSON Schema to show the model: upgrade the library to a version that implements it ' +
        '(zod >= 4.2, ArkType >= 2.1.28, valibot through toStandardJsonSchema() of @valibot/to-json-schema), or write the schema as JSON Schema',
    };
  }
  let derived: unknown;
  let uri = '';
  let refusal: unknown;
  for (const dialect of TARGETS) {
    try {
      derived = converter[io]({ target: dialect.target });
      uri = dialect.uri;
      break;
    } catch (error) {
      refusal ??= error; // the first refusal says why: a later one may only be about the dialect
    }
  }
  if (uri === '') {
    return {
      ok: false,
      reason: `${vendor} cannot express it as JSON Schema (${errorMessage(refusal)}): change the schema so it can (e.g. no transforms where the ${io} is described), or write it as JSON Schema`,
    };
  }
  if (typeof derived !== 'object' || derived === null || Array.isArray(derived)) {
    return {
      ok: false,
      reason: `${vendor} gave ${describeValue(derived)} as its JSON Schema, not an object`,
    };
  }
  // Plain JSON data: zod, for one, makes its JSON Schema a Standard Schema too (`~standard`), which
  // must not reach a model or a client.
  const json = JSON.parse(
    JSON.stringify(derived, (key, value) => (key === '~standard' ? undefined : value)),
  ) as Record<string, unknown>;
  // Say which dialect it is, so that it is compiled (and read by clients) in that one.
  return { ok: true, schema: '$schema' in json ? json : { $schema: uri, ...json } };
}

/** What validating found: the value to go on with (the schema's output), or the problems in words. */
export type Validation = { ok: true; value: unknown } | { ok: false; problems: string[] };

/**
 * Validates with the library's own `~standard.validate`, so its defaults, transforms and refinements
 * apply; a Promise when the library answers asynchronously. `jsonSchema` (the derived one) lets an
 * unknown key's message list the allowed ones. Never throws: a validator that does is a problem.
 * @internal
 */
export function validateStandard(
  schema: StandardSchemaV1,
  value: unknown,
  words: ProblemWords,
  jsonSchema?: unknown,
): Validation | Promise<Validation> {
  const toValidation = (result: StandardSchemaV1.Result<unknown>): Validation =>
    result.issues
      ? { ok: false, problems: describeIssues(result.issues, value, words, jsonSchema) }
      : { ok: true, value: result.value };
  const failed = (error: unknown): Validation => ({
    ok: false,
    problems: [`the schema's validation threw: ${errorMessage(error)}`],
  });
  try {
    const result = schema['~standard'].validate(value);
    return isPromiseLike(result) ? Promise.resolve(result).then(toValidation, failed) : toValidation(result);
  } catch (error) {
    return failed(error);
  }
}

/**
 * Standard Schema issues as sentences in the words JSON Schema problems use. Issues shaped like
 * zod's (`invalid_type`, `invalid_value`, `unrecognized_keys`) read exactly as their JSON Schema
 * counterparts; any other issue is its path, the library's message and the value given.
 * @internal
 */
export function describeIssues(
  issues: readonly StandardSchemaV1.Issue[],
  data: unknown,
  words: ProblemWords,
  jsonSchema?: unknown,
): string[] {
  const lines = issues.flatMap((issue) => describeIssue(issue, data, words, jsonSchema));
  return capProblems(lines);
}

function describeIssue(
  issue: StandardSchemaV1.Issue,
  data: unknown,
  words: ProblemWords,
  jsonSchema: unknown,
): string[] {
  const segments = (issue.path ?? []).map(toSegment);
  const at = segmentsToPath(segments);
  const value = valueAtPath(data, segments);
  const given = describeValue(value);
  const extra = issue as unknown as Record<string, unknown>;
  if (extra.code === 'unrecognized_keys' && Array.isArray(extra.keys)) {
    const allowed = Object.keys(propertiesOf(schemaAt(jsonSchema, segments)));
    return extra.keys.map((key) => sayUnknown(joinPath(at, String(key)), String(key), allowed, words));
  }
  if (value === undefined && isMissingKey(data, segments)) return [sayMissing(at, words)];
  const where = sayWhere(at, words);
  if (extra.code === 'invalid_type' && typeof extra.expected === 'string') {
    return [`${where} must be ${extra.expected === 'int' ? 'integer' : extra.expected}, got ${given}`];
  }
  if (extra.code === 'invalid_value' && Array.isArray(extra.values)) {
    return [sayOneOf(where, extra.values, given)];
  }
  return [`${where}: ${issue.message}, got ${given}`];
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function toSegment(part: PropertyKey | StandardSchemaV1.PathSegment): PathSegment {
  const key = typeof part === 'object' && part !== null ? part.key : part;
  return typeof key === 'number' ? key : String(key);
}

/** True when the path ends at a key its object does not have (not one set to undefined). */
function isMissingKey(data: unknown, segments: readonly PathSegment[]): boolean {
  if (segments.length === 0) return false;
  const parent = valueAtPath(data, segments.slice(0, -1));
  return (
    typeof parent === 'object' && parent !== null && !Array.isArray(parent) && !(segments.at(-1)! in parent)
  );
}

/** The part of a JSON Schema that describes the value at a path (through `properties` and `items`). */
function schemaAt(schema: unknown, segments: readonly PathSegment[]): unknown {
  let current = schema;
  for (const key of segments) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = typeof key === 'number' ? (current as { items?: unknown }).items : propertiesOf(current)[key];
  }
  return current;
}
