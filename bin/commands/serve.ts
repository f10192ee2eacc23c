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
    io.stdout.write(`HubOS listening on ${url}\n`);
    io.stdout.write(
      `  chat page  ${url}/\n  REST       ${url}${hubos.apiPrefix}/agents\n  OpenAPI    ${url}${hubos.apiPrefix}/openapi.json\n`,
    );
    for (const agent of hubos.listAgents())
      io.stdout.write(`  agent      ${agent.id} · model ${agent.modelRef}\n`);
    const teams = kernel.hasService('stars') ? kernel.service('stars') : new Map();
    for (const name of teams.keys())
      io.stdout.write(`  team       ${name} · POST ${url}${hubos.apiPrefix}/stars/${name}/run\n`);
    const workflows = kernel.hasService('workflows') ? kernel.service('workflows') : new Map();
    for (const name of workflows.keys())
      io.stdout.write(`  workflow   ${url}${hubos.apiPrefix}/workflows/${name}\n`);
    // Plugins' endpoints that clients connect to (MCP), as their route docs name them.
    const mcp = hubos.docs.find((doc) => doc.tags?.includes('mcp') && doc.method === 'post');
    if (mcp) io.stdout.write(`  MCP        ${url}${mcp.path}\n`);
    if (hubos.listAgents().some((agent) => agent.model.provider === 'offline')) {
      io.stdout.write('  (offline demo model: set OPENAI_API_KEY or ANTHROPIC_API_KEY for a real one)\n');
    }
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
