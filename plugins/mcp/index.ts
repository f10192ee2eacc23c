import type { KernelView, Plugin } from '../../core/index.ts';
import { MCP_CONFIG_SCHEMA, type McpConfig } from './config.ts';
import type { McpService } from './service.ts';

// The entry is light: the client machinery, the server and the MCP SDK load when the plugin is applied.
export { DEFAULT_RESTART, retryDelay } from './client/backoff.ts';
export { DEFAULT_BOOT_WAIT_MS, McpClients, type McpClientsOptions } from './client/mcp-clients.ts';
export type { McpServerState, McpServerStatus } from './client/status.ts';
export { formatDelay } from './client/timeouts.ts';
export type { SyncedTool } from './client/tool-sync.ts';
export type { TransportKind } from './client/transport-kind.ts';
export * from './config.ts';
export { createMcpServer } from './create-server.ts';
export { MCP_ERROR_CODES } from './errors.ts';
export type { AskAgentRunner } from './server/ask-agent.ts';
export type { McpServerOptions } from './server/mcp-server.ts';
export { McpService } from './service.ts';

declare module 'hubos' {
  interface HubosConfig {
    /** MCP: servers whose tools HubOS uses, and what HubOS serves to MCP clients. */
    mcp?: McpConfig;
  }
}

declare module 'hubos' {
  interface HubosServices {
    /** MCP both ways: the servers used as tool sources (`clients`) and what is served (`serveConfig()`). */
    mcp: McpService;
  }
}

/**
 * The `mcp` plugin: owns the `mcp` config key (the options win over it). Tools of the configured
 * MCP servers join the registry as `<server>_<tool>`; HubOS's own tools, resources and prompts
 * are served over MCP at `/mcp` (and over stdio with `hubos mcp`), with the workspace's files and
 * the caller's stored sessions as resources of its own.
 */
export default function mcp(options: McpConfig = {}): Plugin {
  return {
    name: 'mcp',
    provides: ['mcp'],
    configSchema: { mcp: MCP_CONFIG_SCHEMA },
    async apply(kernel: KernelView) {
      const { applyMcp } = await import('./apply.ts');
      applyMcp(kernel, options);
    },
  };
}
