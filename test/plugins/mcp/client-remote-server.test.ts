/**
 * A server the config names by a hostname is remote, whatever its DNS answers: it is reached
 * through the address guard (here `mcp.remote.test`, resolved to 127.0.0.1, is let through by the
 * config's `allowHosts`, as an operator would allow an internal host), works as any other, and cannot steer HubOS's OAuth discovery at
 * loopback or cloud metadata (refused before any request goes there, with an error that says
 * so). A server named by a loopback address signs in against one there (client-oauth.test.ts).
 */
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../../testing/index.ts';
import { startHttpMcpServer } from '../../fixtures/mcp/http-server.ts';
import { countingServer } from '../../helpers/counting-server.ts';
import { answerDns } from '../../helpers/dns-answers.ts';
import { bootMcp } from './client-helpers.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listening(handler: RequestListener) {
  const server = await countingServer(handler);
  cleanups.push(server.close);
  return server;
}

/** An MCP endpoint that asks for OAuth and names `authorizationServer` in its resource metadata. */
async function protectedServer(origin: (port: number) => string, authorizationServer: string) {
  return listening((req, res) => {
    const port = (req.socket.address() as AddressInfo).port;
    const metadata = `${origin(port)}/.well-known/oauth-protected-resource/mcp`;
    if (req.url?.startsWith('/.well-known/oauth-protected-resource')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ resource: `${origin(port)}/mcp`, authorization_servers: [authorizationServer] }),
      );
      return;
    }
    req.resume();
    res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${metadata}"` }).end();
  });
}

describe('mcp client: a server reached by name', () => {
  it.each([
    [
      'loopback',
      (trap: number) => `https://127.0.0.1:${trap}/`,
      (trap: number) => `https://127.0.0.1:${trap}`,
      '127.0.0.1 is a loopback address',
    ],
    [
      'cloud metadata',
      () => 'https://169.254.169.254/',
      () => 'https://169.254.169.254',
      '169.254.169.254 is a cloud metadata address',
    ],
  ])(
    'a remote server naming an authorization server at %s is refused, and nothing reaches it',
    async (_what, as, origin, reason) => {
      const trap = await listening((_req, res) => res.end('{}'));
      const dns = answerDns((name) => (name === 'mcp.remote.test' ? '127.0.0.1' : undefined));
      cleanups.push(dns.restore);
      const server = await protectedServer((port) => `http://mcp.remote.test:${port}`, as(trap.port));
      const url = `http://mcp.remote.test:${server.port}/mcp`;
      const kernel = await bootMcp({
        servers: { r: { url, allowHosts: ['mcp.remote.test'] } },
        restart: { maxAttempts: 1 },
        onAuthorize: () => {
          throw new Error('no authorization may be asked for');
        },
      });
      const status = kernel.service('mcp').clients.get('r')!;
      expect(status.state).toBe('failed');
      expect(status.error).toContain(
        `refused to contact ${origin(trap.port)} for the MCP server at http://mcp.remote.test:${server.port}: ${reason}`,
      );
      expect(server.connections()).toBeGreaterThan(0);
      expect(trap.connections()).toBe(0);
    },
  );

  it('a server reached by name, through the guard, connects, lists and calls its tools', async () => {
    const server = await startHttpMcpServer();
    cleanups.push(() => server.stop());
    const dns = answerDns((name) => (name === 'mcp.remote.test' ? '127.0.0.1' : undefined));
    cleanups.push(dns.restore);
    const url = `http://mcp.remote.test:${server.port}/mcp`;
    const model = new ScriptedModel([{ toolCalls: [{ name: 'web_echo', input: { text: 'hi' } }] }, 'done']);
    const kernel = await bootMcp(
      { servers: { web: { url, allowHosts: ['mcp.remote.test'] } } },
      { config: { agents: { dev: { model, tools: ['web_*'] } } } },
    );
    expect(kernel.service('mcp').clients.get('web')).toMatchObject({ state: 'ready', target: url });
    const result = await kernel.agent('dev').run('go');
    expect(result.toolCalls[0]).toMatchObject({ ok: true, output: 'http: hi' });
    expect(dns.lookups.get('mcp.remote.test')).toBeGreaterThan(0);
  });

  it('refuses at boot an allowHosts range that is not one', async () => {
    const booting = bootMcp({
      servers: { r: { url: 'https://mcp.remote.test/mcp', allowHosts: ['10.0.0.0/33'] } },
    });
    await expect(booting).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    await expect(booting).rejects.toThrow(
      'mcp.servers.r.allowHosts: "10.0.0.0/33" is not a valid CIDR range',
    );
  });
});
