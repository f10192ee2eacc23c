import type { KernelView, Plugin } from '../../core/index.ts';
import { type McpClients, startMcpClients } from './client/index.ts';
import { MCP_CONFIG_SCHEMA, type McpConfig } from './config.ts';
import { registerBuiltinResources, tapMcpEndpoint } from './server/index.ts';
import { McpService } from './service.ts';

export * from './client/index.ts';
export * from './config.ts';
export { MCP_ERROR_CODES } from './errors.ts';
export * from './server/index.ts';
export { McpService } from './service.ts';

declare module '../../core/config.js' {
  interface HubosConfig {
    /** MCP: servers whose tools HubOS uses, and what HubOS serves to MCP clients. */
    mcp?: McpConfig;
  }
}

declare module '../../core/services.js' {
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
    apply(kernel: KernelView) {
      const config = (): McpConfig => ({ ...kernel.config.mcp, ...options });
      let clients: McpClients | undefined;
      const agentListeners = new Set<() => void>();
      const service = new McpService(config, () => clients, agentListeners);
      kernel.provide('mcp', service);
      const changed = () => {
        for (const listener of agentListeners) listener();
      };
      kernel.hooks.agentCreated.tap('mcp', changed);
      kernel.hooks.agentDestroy.tap('mcp', changed);
      startMcpClients(kernel, config, (started) => {
        clients = started;
      });
      registerBuiltinResources(kernel);
      tapMcpEndpoint(kernel, service);
    },
  };
}
