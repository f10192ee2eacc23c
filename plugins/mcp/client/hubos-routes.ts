import { Hono } from 'hono';
import type { KernelView, Principal } from '../../../core/index.ts';
import { didYouMean } from '../../../core/internal.ts';
import { describeRoute, getHubOSHooks, type HubOSEnv } from '../../hubos/server.ts';
import { MCP_ERROR_CODES } from '../errors.ts';
import type { McpClients } from './mcp-clients.ts';
import type { McpServerStatus } from './status.ts';

/**
 * A pending authorization's URL carries its `state`: whoever holds it could end the sign-in or
 * complete it with their own account. Only an admin (the keyless local caller among them) sees it.
 */
function shownTo(principal: Principal | undefined, status: McpServerStatus): McpServerStatus {
  if (principal?.admin || !status.authorization) return status;
  const { authorization: _hidden, ...rest } = status;
  return rest;
}

/** `GET /` and `GET /:name`, mounted at `<api>/mcp/servers`: each server's full status (behind the API key). */
export function mcpServerRoutes(clients: McpClients): Hono<HubOSEnv> {
  const tags = ['mcp'];
  return new Hono<HubOSEnv>()
    .get(
      '/',
      describeRoute({
        summary: 'The MCP servers used as tool sources: state, tools, last error, next retry',
        tags,
      }),
      (c) => c.json({ servers: clients.list().map((status) => shownTo(c.get('principal'), status)) }),
    )
    .get(
      '/:name',
      describeRoute({
        summary: 'One MCP server used as a tool source',
        tags,
        responses: { 404: 'No such server' },
      }),
      (c) => {
        const name = c.req.param('name');
        const status = clients.get(name);
        if (!status) {
          const known =
            clients
              .list()
              .map((server) => server.name)
              .join(', ') || 'none';
          throw MCP_ERROR_CODES.create(
            'MCP_SERVER_NOT_FOUND',
            `no MCP server "${name}" is configured${didYouMean(
              name,
              clients.list().map((server) => server.name),
            )} (servers: ${known})`,
          );
        }
        return c.json(shownTo(c.get('principal'), status));
      },
    );
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
  hooks.routes.tap('mcp-client', ({ api, mount }) => {
    const current = clients();
    if (current) mount(`${api}/mcp/servers`, mcpServerRoutes(current));
  });
}
