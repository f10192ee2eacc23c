import type { KernelView, Plugin } from '../../core/index.ts';
import { startMcpClients } from './client/index.ts';
import { MCP_CONFIG_SCHEMA, type McpConfig } from './config.ts';
import { tapMcpEndpoint } from './server/index.ts';

export * from './client/index.ts';
export * from './config.ts';
export * from './server/index.ts';

declare module '../../core/config.js' {
  interface HubosConfig {
    /** MCP: servers whose tools HubOS uses, and what HubOS serves to MCP clients. */
    mcp?: McpConfig;
  }
}

/**
 * The `mcp` plugin: owns the `mcp` config key (the options win over it). Tools of the configured
 * MCP servers join the registry as `<server>_<tool>`; HubOS's own tools are served over MCP at
 * `/mcp` (and over stdio with `hubos mcp`).
 */
export default function mcp(options: McpConfig = {}): Plugin {
  return {
    name: 'mcp',
    configSchema: { mcp: MCP_CONFIG_SCHEMA },
    apply(kernel: KernelView) {
      const config = (): McpConfig => ({ ...kernel.config.mcp, ...options });
      startMcpClients(kernel, config);
      tapMcpEndpoint(kernel, config);
    },
  };
}
