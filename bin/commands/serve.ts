import type { CliIO } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';

/**
 * `hubos serve`: boots the config, serves its agents over HTTP, prints where and with which models,
 * and on SIGINT/SIGTERM stops gracefully (running work gets `server.shutdownTimeoutMs` to finish).
 */
export async function serveCommand(
  flags: KernelFlags & { port?: number; host?: string },
  io: CliIO,
  stop: AbortSignal,
): Promise<number> {
  const kernel = await loadKernel('serve', flags, io);
  const hubos = kernel.service('hubos');
  if (flags.port !== undefined) hubos.options.port = flags.port;
  if (flags.host !== undefined) hubos.options.host = flags.host;
  try {
    const url = await hubos.serve();
    // One write: whoever reads the first line (a supervisor, a test) has the whole banner.
    const lines = [
      `HubOS listening on ${url}`,
      `  chat page  ${url}/`,
      `  REST       ${url}${hubos.apiPrefix}/agents`,
      `  OpenAPI    ${url}${hubos.apiPrefix}/openapi.json`,
    ];
    for (const agent of hubos.listAgents()) lines.push(`  agent      ${agent.id} · model ${agent.modelRef}`);
    const teams = kernel.hasService('stars') ? kernel.service('stars') : new Map();
    for (const name of teams.keys())
      lines.push(`  team       ${name} · POST ${url}${hubos.apiPrefix}/stars/${name}/run`);
    const workflows = kernel.hasService('workflows') ? kernel.service('workflows') : new Map();
    for (const name of workflows.keys())
      lines.push(`  workflow   ${url}${hubos.apiPrefix}/workflows/${name}`);
    // Plugins' endpoints that clients connect to (MCP), as their route docs name them.
    const mcp = hubos.docs.find((doc) => doc.tags?.includes('mcp') && doc.method === 'post');
    if (mcp) lines.push(`  MCP        ${url}${mcp.path}`);
    if (hubos.listAgents().some((agent) => agent.model.provider === 'offline'))
      lines.push('  (offline demo model: set OPENAI_API_KEY or ANTHROPIC_API_KEY for a real one)');
    io.stdout.write(`${lines.join('\n')}\n`);
  } catch (error) {
    await kernel.close();
    throw error;
  }
  await new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    stop.addEventListener('abort', () => resolve(), { once: true });
  });
  io.stderr.write('Stopping: letting running work finish…\n');
  await kernel.close('shutdown');
  io.stderr.write('Stopped.\n');
  return 0;
}
