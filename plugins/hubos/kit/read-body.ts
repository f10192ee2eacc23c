import type { Context } from 'hono';
import {
  createAjv,
  describeErrors,
  HubosError,
  type InputOf,
  type JSONSchemaObject,
} from '../../../core/index.ts';
import { HUBOS_ERROR_CODES } from '../errors.ts';

const ajv = createAjv();
type Validate = ReturnType<typeof ajv.compile>;
const bySchema = new WeakMap<object, Validate>();
// A schema written inline in a handler is a new object per request: compiled once per shape, not per call.
const byShape = new Map<string, Validate>();

function validatorFor(schema: JSONSchemaObject): Validate {
  let validate = bySchema.get(schema);
  if (!validate) {
    const shape = JSON.stringify(schema);
    validate = byShape.get(shape) ?? ajv.compile(schema);
    byShape.set(shape, validate);
    bySchema.set(schema, validate);
  }
  return validate;
}

/**
 * Reads the body as JSON: 400 `INVALID_JSON` saying why when it is not. A blank body is `empty` when
 * one is given (an error otherwise). The body limit's 413 passes through.
 */
export async function readJson(c: Context, empty?: unknown): Promise<unknown> {
  try {
    const text = await c.req.text();
    return empty !== undefined && text.trim() === '' ? empty : JSON.parse(text);
  } catch (error) {
    if (HubosError.is(error)) throw error;
    throw HUBOS_ERROR_CODES.create(
      'INVALID_JSON',
      `the request body is not valid JSON: ${(error as Error).message}`,
    );
  }
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
