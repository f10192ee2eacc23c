import type { Context } from 'hono';
import { createAjv, describeErrors, type JSONSchemaObject } from '../../core/index.ts';
import { HttpError } from './http-error.ts';

const ajv = createAjv();
const validators = new WeakMap<object, ReturnType<typeof ajv.compile>>();

/** Reads the JSON body and validates it with `schema` (the same schema the OpenAPI document shows). */
export async function readBody<T>(c: Context, schema: JSONSchemaObject): Promise<T> {
  let body: unknown;
  try {
    const text = await c.req.text();
    body = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(
      400,
      'INVALID_JSON',
      `the request body is not valid JSON: ${(error as Error).message}`,
    );
  }
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  if (!validate(body)) {
    throw new HttpError(
      400,
      'INVALID_BODY',
      `invalid request body: ${describeErrors(validate.errors, body).join('; ')}`,
    );
  }
  return body as T;
}
