import type { CliIO } from '../io.ts';
import type { KernelFlags } from '../load-kernel.ts';

/** `hubos mcp`: serves the config's tools to an MCP client over stdin/stdout (to be built). */
export async function mcpCommand(_flags: KernelFlags, io: CliIO, _signal: AbortSignal): Promise<number> {
  io.stderr.write('hubos mcp: not built yet\n');
  return 1;
}
