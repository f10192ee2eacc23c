import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../../core/index.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { bootMcp, fixtureServer } from './client-helpers.ts';

const served: HubOS[] = [];
afterEach(async () => {
  await Promise.all(served.splice(0).map((hubos) => hubos.close()));
});

async function serve(kernel: Kernel): Promise<string> {
  const hubos = new HubOS({ kernel, name: 'test', port: 0, rateLimit: false });
  served.push(hubos);
  return hubos.serve();
}

describe('mcp client: /health and /api/mcp/servers', () => {
  it('reports each server in /health and turns degraded (still 200) while one is not ready', async () => {
    const kernel = await bootMcp({
      servers: { fx: fixtureServer(), bad: { command: '/nonexistent/hubos-mcp-server' } },
    });
    const url = await serve(kernel);
    const fxTools = kernel.registry.list().filter((tool) => tool.name.startsWith('fx_')).length;
    expect(fxTools).toBeGreaterThan(5);
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      status: 'degraded',
      name: 'test',
      mcp: {
        servers: {
          fx: { state: 'ready', transport: 'stdio', tools: fxTools },
          bad: { state: 'failed', transport: 'stdio', tools: 0 },
        },
      },
    });
    // /health is open: no error text (it may name paths or carry a server's stderr).
    expect(JSON.stringify(body)).not.toContain('nonexistent');
  });

  it('says ok when every enabled server is ready', async () => {
    const kernel = await bootMcp({
      servers: { fx: fixtureServer(), off: fixtureServer([], { enabled: false }) },
    });
    const url = await serve(kernel);
    const body = (await (await fetch(`${url}/health`)).json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      status: 'ok',
      mcp: { servers: { fx: { state: 'ready' }, off: { state: 'stopped' } } },
    });
  });

  it('details the servers at /api/mcp/servers, with the error, and documents the routes', async () => {
    const kernel = await bootMcp({
      servers: { fx: fixtureServer(), bad: { command: '/nonexistent/hubos-mcp-server' } },
    });
    const url = await serve(kernel);
    const list = (await (await fetch(`${url}/api/mcp/servers`)).json()) as {
      servers: Record<string, unknown>[];
    };
    expect(list.servers.map((server) => server.name)).toEqual(['fx', 'bad']);
    expect(list.servers[1]).toMatchObject({ state: 'failed', target: '/nonexistent/hubos-mcp-server' });
    expect(list.servers[1]!.error).toContain('not found');
    const one = await fetch(`${url}/api/mcp/servers/fx`);
    expect(await one.json()).toMatchObject({ name: 'fx', state: 'ready' });
    const missing = await fetch(`${url}/api/mcp/servers/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: {
        code: 'MCP_SERVER_NOT_FOUND',
        message: 'no MCP server "nope" is configured (servers: fx, bad)',
      },
    });
    const doc = (await (await fetch(`${url}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/mcp/servers', '/api/mcp/servers/{name}']),
    );
  });
});
