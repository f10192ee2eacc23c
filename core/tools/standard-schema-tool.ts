import { HubosError } from '../errors.ts';
import { deriveJSONSchema, isStandardSchema, type StandardSchemaV1 } from '../standard-schema.ts';
import type { Tool, ToolSpec } from './tool.ts';

/**
 * The tool with JSON Schema where it was written with Standard Schemas: `inputSchema` is the JSON
 * Schema of what the model sends (the schema's input), `outputSchema` that of what the client
 * receives (the schema's output), and the schemas themselves go to `standardSchemas`, which validate.
 * A tool without any comes back as it is. Throws TOOL_INVALID when no JSON Schema can be derived.
 */
export function withJSONSchemas(tool: ToolSpec): Tool {
  if (typeof tool !== 'object' || tool === null) return tool;
  const input = isStandardSchema(tool.inputSchema) ? tool.inputSchema : undefined;
  const output = isStandardSchema(tool.outputSchema) ? tool.outputSchema : undefined;
  if (!input && !output) return tool as Tool;
  return {
    ...tool,
    inputSchema: input ? derive(tool.name, 'inputSchema', input, 'input') : tool.inputSchema,
    ...(output ? { outputSchema: derive(tool.name, 'outputSchema', output, 'output') } : {}),
    standardSchemas: { ...tool.standardSchemas, ...(input ? { input } : {}), ...(output ? { output } : {}) },
  } as Tool;
}

function derive(name: unknown, field: string, schema: StandardSchemaV1, io: 'input' | 'output') {
  const derived = deriveJSONSchema(schema, io);
  if (derived.ok) return derived.schema;
  const label = typeof name === 'string' ? JSON.stringify(name) : `(${typeof name})`;
  throw new HubosError(
    'TOOL_INVALID',
    `tool ${label}: no JSON Schema can be derived from its ${field}: ${derived.reason}`,
    { details: { tool: name } },
  );
}
