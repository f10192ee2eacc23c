import type { Context } from 'hono';
import {
  HubosError,
  type InputOf,
  type JSONSchemaObject,
  type ValidateFunction,
} from '../../../core/index.ts';
import { describeErrors, SchemaCompilers } from '../../../core/internal.ts';
import { HUBOS_ERROR_CODES } from '../errors.ts';
import { jsonLimitProblem } from './json-limits.ts';

// ajv is made with the first body checked (a command that builds the server without serving makes
// none), or not at all when the schema cache kept the check from an earlier start.
const compilers = new SchemaCompilers();
type Validate = ValidateFunction;
const bySchema = new WeakMap<object, Validate>();
// A schema written inline in a handler is a new object per request: compiled once per shape, not per call.
const byShape = new Map<string, Validate>();

function validatorFor(schema: JSONSchemaObject): Validate {
  let validate = bySchema.get(schema);
  if (!validate) {
    const shape = JSON.stringify(schema);
    validate = byShape.get(shape) ?? compilers.compile(schema);
    byShape.set(shape, validate);
    bySchema.set(schema, validate);
  }
  return validate;
}

/**
 * Whether a Content-Type names JSON (`application/json`, or a `+json` type such as
 * `application/merge-patch+json`). Only these are read as JSON: a form or `text/plain` post — what a
 * web page can send anywhere without asking — never starts anything.
 */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * Reads the body as JSON: 415 `UNSUPPORTED_MEDIA_TYPE` unless it is sent as JSON, 400 `INVALID_JSON`
 * saying why when it is not JSON, 400 `JSON_TOO_COMPLEX` when it is nested or wide past the limits.
 * A blank body is `empty` when one is given (an error otherwise); it needs no Content-Type. The body
 * limit's 413 passes through.
 */
export async function readJson(c: Context, empty?: unknown): Promise<unknown> {
  const contentType = c.req.header('content-type');
  if (contentType !== undefined && !isJsonContentType(contentType)) throw unsupportedMediaType(contentType);
  let text: string;
  try {
    text = await c.req.text();
  } catch (error) {
    if (HubosError.is(error)) throw error;
    throw HUBOS_ERROR_CODES.create(
      'INVALID_JSON',
      `the request body could not be read: ${(error as Error).message}`,
    );
  }
  if (empty !== undefined && text.trim() === '') return empty;
  if (contentType === undefined) throw unsupportedMediaType(undefined);
  return parseJsonText(text);
}

/** Parses JSON text from a client under the limits: the errors `readJson` answers. */
export function parseJsonText(text: string): unknown {
  const problem = jsonLimitProblem(text);
  if (problem) throw HUBOS_ERROR_CODES.create('JSON_TOO_COMPLEX', problem);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw HUBOS_ERROR_CODES.create(
      'INVALID_JSON',
      `the request body is not valid JSON: ${(error as Error).message}`,
    );
  }
}

function unsupportedMediaType(contentType: string | undefined): HubosError {
  const sent = contentType === undefined ? 'no Content-Type' : `Content-Type "${contentType}"`;
  return HUBOS_ERROR_CODES.create(
    'UNSUPPORTED_MEDIA_TYPE',
    `the body must be JSON sent with "Content-Type: application/json", not ${sent} (with curl: --json '{...}' or -H 'content-type: application/json')`,
  );
}

/**
 * Reads the JSON body and validates it with `schema` (the one `describeRoute` shows in the OpenAPI
 * document): 400 `INVALID_JSON` or `INVALID_BODY` saying what is wrong. Typed from an `as const` schema,
 * or by the type argument. An empty body reads as `{}`.
 */
export async function readBody<T = never, const S extends JSONSchemaObject = JSONSchemaObject>(
  c: Context,
  schema: S,
): Promise<[T] extends [never] ? InputOf<S> : T> {
  const body = await readJson(c, {});
  const validate = validatorFor(schema);
  if (!validate(body)) {
    throw HUBOS_ERROR_CODES.create(
      'INVALID_BODY',
      `invalid request body: ${describeErrors(validate.errors, body).join('; ')}`,
    );
  }
  return body as [T] extends [never] ? InputOf<S> : T;
}
