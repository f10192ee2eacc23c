import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { JSONSchemaObject, Tool, ToolHandler } from '../../../core/index.ts';

/** `<prefix>_<tool>` with what model APIs refuse in a tool name made `_`, cut to 64 characters. */
export function hubosToolName(prefix: string, tool: string): string {
  const safe = tool.replace(/[^A-Za-z0-9_-]/g, '_');
  return (prefix === '' ? safe : `${prefix}_${safe}`).slice(0, 64);
}

/**
 * The server's input schema as the registry takes it: an object schema (whatever the server sent),
 * without `$schema` (a draft the validator may not know) and `$id` (ids must be unique per registry).
 */
export function inputSchemaOf(tool: McpTool): JSONSchemaObject {
  const { $schema: _draft, $id: _id, ...rest } = (tool.inputSchema ?? {}) as Record<string, unknown>;
  return { ...rest, type: 'object' } as JSONSchemaObject;
}

/** Fallback when a server's schema does not compile: any object, the server validates. */
export const OPEN_SCHEMA: JSONSchemaObject = { type: 'object', additionalProperties: true };

export interface AdaptOptions {
  server: string;
  prefix: string;
  handler: ToolHandler;
  inputSchema?: JSONSchemaObject;
}

/** An MCP server's tool as a registry tool: named `<prefix>_<tool>`, needing `mcp:<server>`. */
export function adaptTool(tool: McpTool, options: AdaptOptions): Tool {
  const { server, prefix, handler } = options;
  const description =
    tool.description?.trim() || tool.title?.trim() || `The "${tool.name}" tool of MCP server "${server}".`;
  return {
    name: hubosToolName(prefix, tool.name),
    description,
    inputSchema: options.inputSchema ?? inputSchemaOf(tool),
    handler,
    permissions: [`mcp:${server}`],
    metadata: {
      mcp: {
        server,
        tool: tool.name,
        ...(tool.title ? { title: tool.title } : {}),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      },
    },
  };
}

/** What makes two versions of a server's tool differ for the model (and so need replacing). */
export function toolFingerprint(tool: McpTool): string {
  return JSON.stringify([tool.description, tool.title, tool.inputSchema, tool.annotations]);
}
