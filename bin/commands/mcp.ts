import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../../plugins/mcp/server/mcp-server.ts';
import { servedTools } from '../../plugins/mcp/server/served-tools.ts';
import type { CliIO } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';
import { hubosVersion } from '../version.ts';

/**
 * `hubos mcp`: serves the config's tools (and `ask_<agent>` tools, as `mcp.serve` says) to an MCP
 * client over stdin/stdout, until the client closes stdin or the command is interrupted. Stdout
 * carries the protocol and nothing else: logs, and any plugin's `console.log`, go to stderr.
 */
export async function mcpCommand(flags: KernelFlags, io: CliIO, signal: AbortSignal): Promise<number> {
  const restoreConsole = consoleToStderr();
  try {
    const kernel = await loadKernel('mcp', flags, io);
    try {
      const serve = kernel.hasService('mcp')
        ? kernel.service('mcp').serveConfig()
        : kernel.config.mcp?.serve || {};
      const server = createMcpServer(kernel, { serve, name: 'hubos', version: hubosVersion() });
      const transport = new StdioServerTransport(process.stdin, process.stdout);
      const stopped = whenStopped(transport, signal);
      await server.connect(transport);
      const count = servedTools(kernel, serve).size;
      io.stderr.write(`hubos mcp: serving ${count} tool(s) over stdio\n`);
      if (process.stdin.isTTY)
        io.stderr.write('hubos mcp: waiting for an MCP client on stdin (Ctrl-C to stop)\n');
      io.stderr.write(`hubos mcp: ${await stopped}; stopping\n`);
      await server.close();
    } finally {
      await kernel.close('shutdown');
    }
    return 0;
  } finally {
    restoreConsole();
  }
}

/** Resolves with why the session ends: stdin ended, the transport closed, or an interrupt. */
function whenStopped(transport: StdioServerTransport, signal: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const stop = (why: string) => {
      process.stdin.off('end', onEnd).off('close', onEnd);
      signal.removeEventListener('abort', onAbort);
      resolve(why);
    };
    const onEnd = () => stop('the client closed stdin');
    const onAbort = () => stop('interrupted');
    process.stdin.once('end', onEnd).once('close', onEnd);
    signal.addEventListener('abort', onAbort, { once: true });
    transport.onclose = () => stop('the transport closed');
    if (signal.aborted) onAbort();
  });
}

/** A plugin's stray `console.log` would corrupt the protocol on stdout: send the console to stderr. */
function consoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  return () => Object.assign(console, saved);
}
