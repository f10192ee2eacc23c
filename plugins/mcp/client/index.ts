import type { KernelView } from '../../../core/index.ts';
import type { McpConfig } from '../config.ts';

/** Connects the configured MCP servers and registers their tools (to be built). */
export function startMcpClients(_kernel: KernelView, _config: () => McpConfig): void {}
