import type { KernelView } from '../../../core/index.ts';
import type { McpConfig } from '../config.ts';

/** Serves the registry over MCP at `/mcp` on the HubOS server (to be built). */
export function tapMcpEndpoint(_kernel: KernelView, _config: () => McpConfig): void {}
