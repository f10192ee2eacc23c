import { dirname } from 'node:path';
import { hubosVersion, type KernelView } from '../../../core/index.ts';
import type { McpConfig } from '../config.ts';
import { tapMcpHubOS } from './hubos-routes.ts';
import { McpClients } from './mcp-clients.ts';

export { DEFAULT_RESTART, retryDelay } from './backoff.ts';
export { MCP_SERVERS_SCHEMA } from './config-schema.ts';
export { mcpServerRoutes } from './hubos-routes.ts';
export { DEFAULT_BOOT_WAIT_MS, McpClients } from './mcp-clients.ts';
export { DEFAULT_AUTHORIZATION_TIMEOUT_MS } from './person-authorization.ts';
export { DEFAULT_SAMPLING, MAX_SAMPLING_PROMPT_CHARS } from './sampling.ts';
export { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_START_TIMEOUT_MS } from './server-connection.ts';
export type { McpServerState, McpServerStatus } from './status.ts';
export { formatDelay } from './timeouts.ts';
export { hubosToolName } from './tool-adapter.ts';
export type { SyncedTool } from './tool-sync.ts';

/**
 * MCP servers as tool sources. In `registerTools` every enabled server is started at once and boot
 * waits for them (at most `bootWaitMs`), so agents built from the config see their tools; a server
 * that fails does not stop the boot: it is reported, its prefix reserved, and retried with backoff.
 * They are closed (stdio children stopped) when the kernel closes. Servers get roots (the
 * workspace), sampling (the calling run's model) and elicitation (the run's human), and OAuth.
 */
export function startMcpClients(
  kernel: KernelView,
  config: () => McpConfig,
  started: (clients: McpClients) => void,
): void {
  let clients: McpClients | undefined;
  kernel.hooks.registerTools.tapPromise('mcp-client', async (registry) => {
    clients = new McpClients(config(), {
      registry,
      logger: kernel.logger,
      baseDir: kernel.configFile ? dirname(kernel.configFile) : kernel.cwd,
      version: hubosVersion(),
      store: kernel.store,
      workspaceRoot: kernel.sandbox.root,
    });
    started(clients);
    await clients.start();
  });
  kernel.hooks.beforeClose.tap('mcp-client', () => clients?.stopRetrying());
  kernel.hooks.close.tapPromise('mcp-client', async () => {
    await clients?.close();
  });
  tapMcpHubOS(kernel, () => clients);
}
