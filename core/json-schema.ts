import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import type { JSONSchema as TypedJSONSchema } from 'json-schema-to-ts';

/** A JSON Schema as written by users; `as const` literals keep their types for inference. */
export type JSONSchema = TypedJSONSchema;
export type JSONSchemaObject = Exclude<JSONSchema, boolean>;

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = ((formatsModule as { default?: unknown }).default ?? formatsModule) as (ajv: Ajv) => Ajv;

/**
 * One ajv per owner. Defaults are applied (`useDefaults`) and types are never coerced:
 * JSON numbers arrive as numbers, and a string "3" for an integer is an error the caller sees.
 * `verbose` puts `parentSchema` in errors, which `describeErrors` needs to list allowed properties.
 * @internal
 */
export function createAjv(draft: 'draft-07' | '2020-12' = 'draft-07'): Ajv {
  // The 2020-12 dialect is loaded only by an app whose schemas declare it.
  const Dialect = draft === '2020-12' ? loadAjv2020() : Ajv;
  const ajv = new Dialect({
    allErrors: true,
    useDefaults: true,
    coerceTypes: false,
    strict: false,
    verbose: true,
  });
  addFormats(ajv);
  return ajv;
}

export type { ValidateFunction };

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

  for(schema: object): Ajv {
    const dialect = schemaDialect(schema);
    let ajv = this.#byDialect.get(dialect);
    if (!ajv) {
      ajv = createAjv(dialect);
      this.#byDialect.set(dialect, ajv);
    }
    return ajv;
  }
}

let ajv2020: typeof Ajv | undefined;
function loadAjv2020(): typeof Ajv {
  ajv2020 ??= (createRequire(import.meta.url)('ajv/dist/2020.js') as { Ajv2020: typeof Ajv }).Ajv2020;
  return ajv2020;
}

/**
 * Turns ajv errors into sentences naming the field, what was expected and what was given.
 * @internal
 */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined, data: unknown): string[] {
  const lines = (errors ?? []).filter((e) => e.keyword !== 'if').map((e) => describeError(e, data));
  return [...new Set(lines)];
}

function describeError(error: ErrorObject, data: unknown): string {
  const at = pointerToPath(error.instancePath);
  const where = at === '' ? 'the input' : `"${at}"`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `missing required property "${join(at, String(params.missingProperty))}"`;
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const allowed = Object.keys(propertiesOf(error.parentSchema));
      const hint = allowed.length > 0 ? ` (allowed: ${allowed.join(', ')})` : '';
      return `unknown property "${join(at, extra)}"${hint}`;
    }
    case 'type':
      return `${where} must be ${String(params.type)}, got ${describeValue(valueAt(data, error.instancePath))}`;
    case 'enum':
      return `${where} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, got ${describeValue(valueAt(data, error.instancePath))}`;
    case 'const':
      return `${where} must be ${JSON.stringify(params.allowedValue)}, got ${describeValue(valueAt(data, error.instancePath))}`;
    default:
      return `${where} ${error.message ?? 'is invalid'}, got ${describeValue(valueAt(data, error.instancePath))}`;
  }
}

function propertiesOf(schema: unknown): Record<string, unknown> {
  if (typeof schema !== 'object' || schema === null) return {};
  const properties = (schema as { properties?: unknown }).properties;
  return typeof properties === 'object' && properties !== null ? (properties as Record<string, unknown>) : {};
}

/** `/servers/0/port` -> `servers[0].port` */
function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function valueAt(data: unknown, pointer: string): unknown {
  if (pointer === '') return data;
  let current: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
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
