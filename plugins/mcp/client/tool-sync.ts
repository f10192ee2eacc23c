import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import {
  errorMessage,
  HubosError,
  type Logger,
  type Registry,
  type Tool,
  type ToolHandler,
} from '../../../core/index.ts';
import { adaptTool, hubosToolName, OPEN_SCHEMA, toolFingerprint } from './tool-adapter.ts';

/** One of a server's tools as HubOS has it. */
export interface SyncedTool {
  /** The registry name, `<prefix>_<tool>`. */
  name: string;
  /** The server's own name for it. */
  tool: string;
  description: string;
}

export interface ToolSyncOptions {
  registry: Registry;
  logger: Logger;
  server: string;
  prefix: string;
  /** The handler calling the server's tool `tool`. */
  handlerFor(tool: string): ToolHandler;
}

/**
 * Keeps the registry in step with one server's tool list: `apply(list)` unregisters the tools that
 * are gone, replaces those that changed and registers the new ones. Tools stay registered while the
 * server is down (their calls say so); a list that comes back after a restart is applied the same way.
 */
export class ToolSync {
  readonly #options: ToolSyncOptions;
  readonly #current = new Map<string, { tool: Tool; mcp: string; fingerprint: string }>();
  #order: string[] = [];

  constructor(options: ToolSyncOptions) {
    this.#options = options;
  }

  apply(tools: readonly McpTool[]): void {
    const { server, prefix, registry, logger } = this.#options;
    const wanted = new Map<string, McpTool>();
    for (const tool of tools) {
      const name = hubosToolName(prefix, tool.name);
      const first = wanted.get(name);
      if (first) {
        logger.warn(
          `MCP server "${server}": its tools "${first.name}" and "${tool.name}" both become "${name}": only the first is used`,
        );
        continue;
      }
      wanted.set(name, tool);
    }
    for (const [name, entry] of this.#current) {
      const next = wanted.get(name);
      if (next && next.name === entry.mcp && toolFingerprint(next) === entry.fingerprint) continue;
      // Only ours: a tool another plugin registered under the name stays.
      if (registry.has(name) && registry.get(name) === entry.tool) registry.unregister(name);
      this.#current.delete(name);
    }
    for (const [name, tool] of wanted) if (!this.#current.has(name)) this.#register(name, tool);
    this.#order = [...wanted.keys()];
  }

  /** The tools registered now, in the server's order. */
  list(): SyncedTool[] {
    return this.#order.flatMap((name) => {
      const entry = this.#current.get(name);
      return entry ? [{ name, tool: entry.mcp, description: entry.tool.description }] : [];
    });
  }

  #register(name: string, tool: McpTool): void {
    const { server, prefix, registry, logger } = this.#options;
    const handler = this.#options.handlerFor(tool.name);
    let adapted = adaptTool(tool, { server, prefix, handler });
    try {
      registry.register(adapted);
    } catch (error) {
      if (!HubosError.is(error, 'TOOL_INVALID')) {
        logger.warn(`MCP server "${server}": tool "${tool.name}" is not used: ${errorMessage(error)}`);
        return;
      }
      // The server validates its input anyway: an open schema keeps the tool usable.
      logger.warn(
        `MCP server "${server}": the input schema of tool "${tool.name}" was not accepted (${errorMessage(error)}); "${name}" takes any object and the server checks it`,
      );
      adapted = adaptTool(tool, { server, prefix, handler, inputSchema: { ...OPEN_SCHEMA } });
      try {
        registry.register(adapted);
      } catch (again) {
        logger.warn(`MCP server "${server}": tool "${tool.name}" is not used: ${errorMessage(again)}`);
        return;
      }
    }
    this.#current.set(name, { tool: adapted, mcp: tool.name, fingerprint: toolFingerprint(tool) });
  }
}
