import { errorMessage, HubosError } from '../errors.ts';
import type { SchemaCompilers, ValidateFunction } from '../json-schema.ts';
import type { Tool } from './tool.ts';

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

function invalid(name: string, problem: string): HubosError {
  return new HubosError('TOOL_INVALID', `tool ${name}: ${problem}`, { details: { tool: name } });
}

/**
 * Checks a tool's shape and compiles its input (and output) schema once, each by the JSON Schema
 * dialect it declares; throws TOOL_INVALID naming the problem.
 */
export function checkTool(
  tool: unknown,
  compilers: SchemaCompilers,
): { tool: Tool; validate: ValidateFunction; output?: ValidateFunction } {
  if (typeof tool !== 'object' || tool === null) {
    throw new HubosError(
      'TOOL_INVALID',
      `a tool must be an object, got ${tool === null ? 'null' : typeof tool}`,
    );
  }
  const { name, description, inputSchema, outputSchema, handler, permissions } = tool as Partial<Tool>;
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
  if (typeof inputSchema !== 'object' || inputSchema === null || Array.isArray(inputSchema)) {
    throw invalid(label, 'inputSchema must be a JSON Schema object, e.g. { type: "object", properties: {} }');
  }
  if (inputSchema.type !== 'object') {
    throw invalid(
      label,
      `inputSchema must describe an object (type: "object"), got type ${JSON.stringify(inputSchema.type)}`,
    );
  }
  const validate = compile(label, 'inputSchema', inputSchema, compilers);
  if (outputSchema === undefined) return { tool: tool as Tool, validate };
  if (typeof outputSchema !== 'object' || outputSchema === null || outputSchema.type !== 'object') {
    compilers.for(inputSchema).removeSchema(inputSchema);
    throw invalid(label, 'outputSchema must be a JSON Schema of an object (type: "object"), as MCP asks');
  }
  try {
    return { tool: tool as Tool, validate, output: compile(label, 'outputSchema', outputSchema, compilers) };
  } catch (error) {
    compilers.for(inputSchema).removeSchema(inputSchema);
    throw error;
  }
}

function compile(label: string, field: string, schema: object, compilers: SchemaCompilers): ValidateFunction {
  const ajv = compilers.for(schema);
  if (!ajv.validateSchema(schema)) {
    throw invalid(label, `${field} is not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}`);
  }
  try {
    return ajv.compile(schema);
  } catch (error) {
    ajv.removeSchema(schema); // ajv keeps a schema's $id even when compiling it fails
    throw invalid(label, `${field} does not compile: ${errorMessage(error)}`);
  }
}

function isPermission(value: unknown): boolean {
  return typeof value === 'string' && /^[a-z][a-z0-9_-]*:[a-zA-Z0-9_*.-]+$/.test(value);
}
