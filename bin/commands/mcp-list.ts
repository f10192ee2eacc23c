import type { CliIO } from '../io.ts';
import type { KernelFlags } from '../load-kernel.ts';

/** `hubos mcp list`: the configured MCP servers, their state and their tools (to be built). */
export async function mcpListCommand(_flags: KernelFlags & { json?: boolean }, io: CliIO): Promise<number> {
  io.stderr.write('hubos mcp list: not built yet\n');
  return 1;
}
