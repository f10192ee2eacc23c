import type { KernelView } from '../../core/index.ts';
import { type McpClients, startMcpClients } from './client/index.ts';
import type { McpConfig } from './config.ts';
import { registerBuiltinResources, tapMcpEndpoint } from './server/index.ts';
import { McpService } from './service.ts';

/**
 * What the `mcp` plugin does once enabled: the service, the configured servers as tool sources, the
 * built-in resources and the `/mcp` endpoint. Loaded by the plugin's apply, so that importing
 * `hubos/plugins` does not load the MCP SDK.
 */
export function applyMcp(kernel: KernelView, options: McpConfig): void {
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
}
