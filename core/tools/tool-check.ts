import { errorMessage, HubosError } from '../errors.ts';
import {
  describeErrors,
  INPUT_WORDS,
  type JSONSchemaObject,
  type SchemaCompilers,
  type ValidateFunction,
} from '../json-schema.ts';
import {
  isStandardSchema,
  type StandardSchemaV1,
  type Validation,
  validateStandard,
} from '../standard-schema.ts';
import { withJSONSchemas } from './standard-schema-tool.ts';
import type { Tool, ToolSpec } from './tool.ts';

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

function invalid(name: string, problem: string): HubosError {
  return new HubosError('TOOL_INVALID', `tool ${name}: ${problem}`, { details: { tool: name } });
}

/** One of a tool's schemas, ready to check values against. */
export interface SchemaCheck {
  /**
   * Checks at once. A Standard Schema that answers only asynchronously is checked here against
   * the JSON Schema derived from it, a first look; `full` awaits its own answer.
   */
  now(value: unknown): Validation;
  /** The full check: the Standard Schema's own answer (a Promise where it answers asynchronously), or ajv's. */
  full(value: unknown): Validation | Promise<Validation>;
}

export interface CheckedTool {
  /** The tool as the registry keeps it: JSON Schema in `inputSchema` / `outputSchema`. */
  tool: Tool;
  input: SchemaCheck;
  output?: SchemaCheck;
}

/**
 * Checks a tool's shape, derives JSON Schema from Standard Schemas, and readies its input (and
 * output) schema once: JSON Schema compiled by the dialect it declares, a Standard Schema by its
 * library's own `validate`. Throws TOOL_INVALID naming the problem.
 */
export function checkTool(spec: unknown, compilers: SchemaCompilers): CheckedTool {
  if (typeof spec !== 'object' || spec === null) {
    throw new HubosError(
      'TOOL_INVALID',
      `a tool must be an object, got ${spec === null ? 'null' : typeof spec}`,
    );
  }
  const { name, description, handler, permissions, idempotent } = spec as Partial<Tool>;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    const shown = typeof name === 'string' ? JSON.stringify(name) : `(${typeof name})`;
    throw invalid(
      shown,
      'name must be 1-64 letters, digits, "_" or "-" (what model APIs accept), e.g. "weather_today"',
    );
  }
  const label = JSON.stringify(name);
  if (typeof description !== 'string' || description.trim() === '') {
    throw invalid(label, 'description is missing: tell the model what the tool does and when to use it');
  }
  if (typeof handler !== 'function') {
    throw invalid(label, `handler must be a function, got ${typeof handler}`);
  }
  if (permissions !== undefined && !(Array.isArray(permissions) && permissions.every(isPermission))) {
    throw invalid(label, 'permissions must be an array of "<domain>:<action>" strings, e.g. ["fs:read"]');
  }
  if (idempotent !== undefined && typeof idempotent !== 'boolean') {
    throw invalid(
      label,
      `idempotent must be true (running the call twice does no more than once) or false, got ${typeof idempotent}`,
    );
  }
  const tool = withJSONSchemas(spec as ToolSpec);
  const { inputSchema, outputSchema, standardSchemas } = tool;
  if (typeof inputSchema !== 'object' || inputSchema === null || Array.isArray(inputSchema)) {
    throw invalid(
      label,
      'inputSchema must be a JSON Schema object, e.g. { type: "object", properties: {} }, or a Standard Schema (zod, valibot, ArkType…)',
    );
  }
  if (inputSchema.type !== 'object') {
    const hint = standardSchemas?.input ? ' (declare it as an object schema, e.g. z.object({ … }))' : '';
    throw invalid(
      label,
      `inputSchema must describe an object (type: "object"), got type ${JSON.stringify(inputSchema.type)}${hint}`,
    );
  }
  for (const [io, schema] of Object.entries(standardSchemas ?? {})) {
    if (schema !== undefined && !isStandardSchema(schema)) {
      throw invalid(label, `standardSchemas.${io} must be a Standard Schema (with ~standard.validate)`);
    }
  }
  const input = schemaCheck(label, 'inputSchema', inputSchema, standardSchemas?.input, compilers);
  if (outputSchema === undefined) return { tool, input };
  if (typeof outputSchema !== 'object' || outputSchema === null || outputSchema.type !== 'object') {
    compilers.for(inputSchema).removeSchema(inputSchema);
    throw invalid(label, 'outputSchema must be a JSON Schema of an object (type: "object"), as MCP asks');
  }
  try {
    return {
      tool,
      input,
      output: schemaCheck(label, 'outputSchema', outputSchema, standardSchemas?.output, compilers),
    };
  } catch (error) {
    compilers.for(inputSchema).removeSchema(inputSchema);
    throw error;
  }
}

function schemaCheck(
  label: string,
  field: string,
  schema: JSONSchemaObject,
  standard: StandardSchemaV1 | undefined,
  compilers: SchemaCompilers,
): SchemaCheck {
  if (!standard) {
    const validator = compileWhenUsed(label, field, schema, compilers);
    const now = (value: unknown): Validation => {
      const validate = validator();
      return validate(value)
        ? { ok: true, value }
        : { ok: false, problems: describeErrors(validate.errors, value) };
    };
    return { now, full: now };
  }
  const problems = compilers.problemsOf(schema);
  if (problems !== undefined) {
    throw invalid(label, `the JSON Schema derived from its ${field} is not valid: ${problems}`);
  }
  // Compiled only if the library ever answers asynchronously: until then its own check is the one.
  let derived: ValidateFunction | undefined;
  return {
    now(value) {
      const result = validateStandard(standard, value, INPUT_WORDS, schema);
      if (!(result instanceof Promise)) return result;
      try {
        derived ??= compile(label, field, schema, compilers);
      } catch {
        return { ok: true, value }; // no first look possible: the full check still runs before the handler
      }
      return derived(value)
        ? { ok: true, value }
        : { ok: false, problems: describeErrors(derived.errors, value) };
    },
    full: (value) => validateStandard(standard, value, INPUT_WORDS, schema),
  };
}

/**
 * What only compiling checks, so a schema holding it compiles at once: a reference (`$ref` that
 * does not resolve, an `$id` taken) or a regular expression (`pattern`, `patternProperties`; the
 * meta-schema does not check their syntax, and MCP servers written in Python send `(?P<name>…)`).
 * Read in the schema's JSON, where these keywords have a string value: a property named `pattern`
 * (a search tool's) has a schema, and does not make its tool compile at start.
 */
const COMPILE_CHECKED =
  /"(\$(ref|id|anchor|dynamicRef|dynamicAnchor|recursiveRef)|pattern)":"|"patternProperties":/;

/**
 * Checks the schema now (against its meta-schema, which catches what a wrong schema gets wrong)
 * and compiles it when first used: a start registers a dozen tools an app may never call, and
 * compiling is most of what registering costs. A schema with what only compiling checks compiles now.
 */
function compileWhenUsed(
  label: string,
  field: string,
  schema: JSONSchemaObject,
  compilers: SchemaCompilers,
): () => ValidateFunction {
  const problems = compilers.problemsOf(schema);
  if (problems !== undefined) throw invalid(label, `${field} is not a valid JSON Schema: ${problems}`);
  let validate = COMPILE_CHECKED.test(JSON.stringify(schema))
    ? compile(label, field, schema, compilers)
    : undefined;
  return () => {
    validate ??= compile(label, field, schema, compilers);
    return validate;
  };
}

/** Compiles a schema its caller has checked against its meta-schema. */
function compile(label: string, field: string, schema: object, compilers: SchemaCompilers): ValidateFunction {
  try {
    return compilers.compile(schema);
  } catch (error) {
    compilers.for(schema).removeSchema(schema); // ajv keeps a schema's $id even when compiling it fails
    throw invalid(label, `${field} does not compile: ${errorMessage(error)}`);
  }
}

function isPermission(value: unknown): boolean {
  return typeof value === 'string' && /^[a-z][a-z0-9_-]*:[a-zA-Z0-9_*.-]+$/.test(value);
}
