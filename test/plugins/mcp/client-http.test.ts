import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../../testing/index.ts';
import { type HttpMcpServer, startHttpMcpServer } from '../../fixtures/mcp/http-server.ts';
import { bootMcp, recordingLogger, until } from './client-helpers.ts';

const servers: HttpMcpServer[] = [];
async function httpServer(port?: number): Promise<HttpMcpServer> {
  const server = await startHttpMcpServer(port);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

describe('mcp client: a Streamable HTTP server', () => {
  it('registers its tools and calls them with the configured headers', async () => {
    const server = await httpServer();
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'web_echo', input: { text: 'hi' } }, { name: 'web_headers' }] },
      'done',
    ]);
    const kernel = await bootMcp(
      { servers: { web: { url: `${server.url}?key=secret`, headers: { 'x-api-key': 'k-123' } } } },
      { config: { agents: { dev: { model, tools: ['web_*'] } } } },
    );
    expect(kernel.registry.get('web_echo')).toMatchObject({
      description: 'Echoes its text back over HTTP.',
      permissions: ['mcp:web'],
    });
    const status = kernel.service('mcp').clients.get('web')!;
    expect(status).toMatchObject({ transport: 'http', state: 'ready', target: server.url });
    const result = await kernel.agent('dev').run('go');
    expect(result.toolCalls[0]).toMatchObject({ ok: true, output: 'http: hi' });
    const headers = JSON.parse(result.toolCalls[1]!.output as string) as Record<string, string>;
    expect(headers['x-api-key']).toBe('k-123');
  });

  it('boots when the server refuses connections, and connects once it listens', async () => {
    const probe = await httpServer();
    const { port } = probe;
    await probe.stop();
    const logger = recordingLogger();
    const kernel = await bootMcp(
      { servers: { web: { url: `http://127.0.0.1:${port}/mcp` } } },
      { logger, config: { agents: { dev: { model: new ScriptedModel(), tools: ['web_echo'] } } } },
    );
    const status = kernel.service('mcp').clients.get('web')!;
    expect(status.state).toBe('failed');
    expect(status.error).toContain(`cannot reach http://127.0.0.1:${port}/mcp`);
    expect(logger.warnings()[0]).toContain('MCP server "web" failed to start: cannot reach');
    await probe.start();
    await until(() => kernel.service('mcp').clients.get('web')!.state === 'ready', 'the connection');
    await until(() => kernel.agent('dev').tools.length === 1, 'the agent to get web_echo');
  });

  it('reconnects after the server went away and came back', async () => {
    const server = await httpServer();
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'web_echo', input: { text: 'one' } }] },
      'first',
      { toolCalls: [{ name: 'web_echo', input: { text: 'two' } }] },
      'second',
      { toolCalls: [{ name: 'web_echo', input: { text: 'three' } }] },
      'third',
    ]);
    const kernel = await bootMcp(
      { servers: { web: { url: server.url } } },
      { config: { agents: { dev: { model, tools: ['web_*'] } } } },
    );
    const agent = kernel.agent('dev');
    expect((await agent.run('1')).toolCalls[0]).toMatchObject({ ok: true, output: 'http: one' });
    await server.stop();
    const down = await agent.run('2');
    expect(down.toolCalls[0]!.ok).toBe(false);
    expect(down.toolCalls[0]!.error!.message).toMatch(
      /MCP server "web" (could not be reached|is not connected)/,
    );
    await until(() => kernel.service('mcp').clients.get('web')!.state !== 'ready', 'the loss to be noticed');
    await server.start();
    await until(() => kernel.service('mcp').clients.get('web')!.state === 'ready', 'the reconnection');
    expect((await agent.run('3')).toolCalls[0]).toMatchObject({ ok: true, output: 'http: three' });
  });
});
