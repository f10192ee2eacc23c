import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { KernelView } from '../../core/index.ts';
import type { McpServerOptions } from './server/mcp-server.ts';

/**
 * An MCP server (the SDK's `Server`) offering the kernel's tools, resources and prompts, for a
 * transport of your own (`hubos mcp` and `/mcp` use it). Asynchronous: the MCP SDK loads on the
 * first call, not with `hubos/plugins`.
 */
export async function createMcpServer(kernel: KernelView, options: McpServerOptions = {}): Promise<Server> {
  const { createMcpServer: create } = await import('./server/mcp-server.ts');
  return create(kernel, options);
}
