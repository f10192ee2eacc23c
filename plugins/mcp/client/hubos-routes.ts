import type { Hono } from 'hono';
import type { KernelView } from '../../../core/index.ts';
import { getHubOSHooks } from '../../hubos/hooks.ts';
import { HttpError } from '../../hubos/http-error.ts';
import type { HubOS } from '../../hubos/hubos.ts';
import type { McpClients } from './mcp-clients.ts';

/** `GET <api>/mcp/servers` and `GET <api>/mcp/servers/:name`: each server's full status (behind the API key). */
export function mcpServerRoutes(app: Hono, hubos: HubOS, clients: McpClients): void {
  const base = `${hubos.apiPrefix}/mcp/servers`;
  hubos.document(
    {
      method: 'get',
      path: base,
      summary: 'The MCP servers used as tool sources: state, tools, last error, next retry',
      tags: ['mcp'],
    },
    {
      method: 'get',
      path: `${base}/{name}`,
      summary: 'One MCP server used as a tool source',
      tags: ['mcp'],
      responses: { 404: 'No such server' },
    },
  );
  app.get(base, (c) => c.json({ servers: clients.list() }));
  app.get(`${base}/:name`, (c) => {
    const name = c.req.param('name');
    const status = clients.get(name);
    if (!status) {
      const known =
        clients
          .list()
          .map((server) => server.name)
          .join(', ') || 'none';
      throw new HttpError(
        404,
        'MCP_SERVER_NOT_FOUND',
        `no MCP server "${name}" is configured (servers: ${known})`,
      );
    }
    return c.json(status);
  });
}

/**
 * Ties the clients into HubOS: `/health` gets `mcp: { servers }` (state, transport, tool count; no
 * errors, as /health is open) and turns `degraded` while an enabled server is not ready; the
 * detailed routes join the API.
 */
export function tapMcpHubOS(kernel: KernelView, clients: () => McpClients | undefined): void {
  const hooks = getHubOSHooks(kernel);
  hooks.health.tap('mcp-client', (body) => {
    const current = clients();
    if (!current) return body;
    const servers = Object.fromEntries(
      current.list().map((server) => [
        server.name,
        {
          state: server.state,
          transport: server.transport,
          tools: server.tools.length,
          ...(server.attempts > 0 ? { attempts: server.attempts } : {}),
          ...(server.nextRetryAt ? { nextRetryAt: server.nextRetryAt } : {}),
        },
      ]),
    );
    const status = current.degraded && body.status === 'ok' ? 'degraded' : body.status;
    return { ...body, status, mcp: { servers } };
  });
  hooks.routes.tap('mcp-client', ({ app, hubos }) => {
    const current = clients();
    if (current) mcpServerRoutes(app, hubos, current);
  });
}
