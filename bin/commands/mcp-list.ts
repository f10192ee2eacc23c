import { formatDelay, type McpServerStatus } from '../../plugins/mcp/index.ts';
import type { CliIO } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';

const NONE =
  'No MCP servers configured: add `mcp: { servers: { <name>: { command, args } | { url } } }` to agent.config.ts.\n';

/**
 * `hubos mcp list`: boots the config, waits for each server's first start attempt, then prints each
 * configured server (transport, state, error) and its tools. Exit 0 when every enabled server is
 * ready (or none is configured), 1 when one is not, so scripts can check an MCP setup.
 */
export async function mcpListCommand(flags: KernelFlags & { json?: boolean }, io: CliIO): Promise<number> {
  const kernel = await loadKernel('mcp', flags, io);
  try {
    if (!kernel.hasService('mcp')) {
      if (flags.json) io.stdout.write(`${JSON.stringify({ servers: [] }, null, 2)}\n`);
      else io.stdout.write(NONE);
      return 0;
    }
    const { clients } = kernel.service('mcp');
    await clients.settled();
    const servers = clients.list();
    if (flags.json) io.stdout.write(`${JSON.stringify({ servers }, null, 2)}\n`);
    else if (servers.length === 0) io.stdout.write(NONE);
    else {
      io.stdout.write(`${servers.length} MCP server(s):\n`);
      for (const server of servers) io.stdout.write(`\n${describeServer(server)}`);
    }
    return clients.degraded ? 1 : 0;
  } finally {
    await kernel.close();
  }
}

function describeServer(server: McpServerStatus): string {
  const lines = [`${server.name}  ${server.transport}  ${server.state}  (${server.target})`];
  if (server.error) lines.push(`  error: ${server.error}`);
  for (const line of server.stderr ?? []) lines.push(`  stderr: ${line}`);
  if (server.state === 'failed') {
    const retry = server.nextRetryAt
      ? `next attempt in ${formatDelay(Math.max(0, Date.parse(server.nextRetryAt) - Date.now()))}`
      : 'no more attempts (restart.maxAttempts)';
    lines.push(`  failed attempts in a row: ${server.attempts}; ${retry}`);
  }
  if (server.tools.length === 0)
    lines.push(server.state === 'ready' ? '  no tools' : '  tools: none known yet');
  else lines.push(`  tools (${server.tools.length}):`);
  for (const tool of server.tools) lines.push(`    ${tool.name}  ${summary(tool.description)}`);
  return `${lines.join('\n')}\n`;
}

/** A description's first line, cut to fit a terminal line. */
function summary(description: string): string {
  const first = description.split('\n')[0]!.trim();
  return first.length > 100 ? `${first.slice(0, 99)}…` : first;
}
