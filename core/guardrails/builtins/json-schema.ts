import {
  describeErrors,
  type JSONSchema,
  SchemaCompilers,
  type ValidateFunction,
} from '../../json-schema.ts';
import { defineGuardrail, type Guardrail, type GuardrailStage, trip } from '../guardrail.ts';
import { invalid, readOptions } from './options.ts';

export interface JsonSchemaOptions {
  /** The JSON Schema (draft-07, or 2020-12 when its `$schema` says so) the answer must fit. */
  schema: JSONSchema | Readonly<Record<string, unknown>>;
}

const WHAT: Record<GuardrailStage, string> = {
  input: 'the message',
  output: 'the answer',
  'tool-input': "the tool's arguments",
  'tool-output': "the tool's output",
};

/** At most this many problems are told in a reason. */
const MAX_PROBLEMS = 3;

/**
 * `json-schema`: the answer (or a tool's output) must be JSON that fits `schema`; it trips saying
 * which path failed and how. Checks whole answers only: half a JSON document never parses.
 */
export function jsonSchema(options: JsonSchemaOptions): Guardrail {
  const read = readOptions('json-schema', options, ['schema']);
  const schema = read.schema;
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema)))
    throw invalid(
      'json-schema',
      `option "schema" is required: a JSON Schema object, e.g. { use: 'json-schema', schema: { type: 'object', required: ['answer'] } }`,
    );
  const validate = compile(schema as object | boolean);
  return defineGuardrail({
    name: 'json-schema',
    stages: ['output', 'tool-output'],
    streaming: 'whole',
    check(value, ctx) {
      const what = WHAT[ctx.stage];
      let data: unknown;
      if (typeof value === 'string') {
        try {
          data = JSON.parse(value);
        } catch (error) {
          return trip(`${what} is not JSON (${(error as Error).message})`);
        }
      } else data = copy(value);
      if (validate(data)) return undefined;
      const problems = describeErrors(validate.errors, data, { whole: what, key: 'property' });
      const told = problems.slice(0, MAX_PROBLEMS).join('; ');
      const more = problems.length > MAX_PROBLEMS ? ` (and ${problems.length - MAX_PROBLEMS} more)` : '';
      return trip(`${what} does not fit the schema: ${told}${more}`);
    },
  });
}

function compile(schema: object | boolean): ValidateFunction {
  // Each guardrail its own compilers: two agents' schemas with the same `$id` do not collide.
  const compilers = new SchemaCompilers();
  if (typeof schema === 'object') {
    const problems = compilers.problemsOf(schema);
    if (problems) throw invalid('json-schema', `option "schema" is not a valid JSON Schema: ${problems}`);
  }
  try {
    return compilers.compile(schema as object);
  } catch (error) {
    throw invalid('json-schema', `option "schema" does not compile: ${(error as Error).message}`);
  }
}

/** Validation fills in defaults (`useDefaults`): it works on a copy, so a tool's output is not changed by a check. */
function copy(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}
