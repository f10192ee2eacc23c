import type { RequestListener } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serverFetch } from '../../../plugins/mcp/client/server-fetch.ts';
import { countingServer } from '../../helpers/counting-server.ts';
import { answerDns } from '../../helpers/dns-answers.ts';

/** A server on 127.0.0.1 that counts the connections it gets, closed after the test. */
async function listening(handler: RequestListener = (_req, res) => res.end('{"issuer":"local"}')) {
  const server = await countingServer(handler);
  cleanups.push(server.close);
  return server;
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  vi.unstubAllGlobals();
});

const remote = new URL('https://93.184.216.34/mcp');

describe("an MCP server's fetch: other origins it names", () => {
  it('a remote server cannot steer HubOS at private addresses or plain http; nothing is sent', async () => {
    // Nothing may be sent: a request that got past the checks would reach this instead of the network.
    const sent = vi.fn(async () => new Response('{}'));
    vi.stubGlobal('fetch', sent);
    const fetchFor = serverFetch({ serverUrl: remote });
    await expect(fetchFor('http://127.0.0.1:9/.well-known/oauth-authorization-server')).rejects.toThrow(
      'refused to contact http://127.0.0.1:9 for the MCP server at https://93.184.216.34: it is not https',
    );
    const cases: [target: string, reason: string][] = [
      ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is a cloud metadata address'],
      ['https://localhost:8443/token', 'localhost is a loopback address'],
      ['https://[::1]/register', '::1 is a loopback address'],
    ];
    for (const [target, reason] of cases)
      await expect(fetchFor(target)).rejects.toThrow(
        `refused to contact ${new URL(target).origin} for the MCP server at https://93.184.216.34: ${reason}`,
      );
    expect(sent).not.toHaveBeenCalled();
  });

  it.each([
    ['[64:ff9b::7f00:1]', 'IPv4 127.0.0.1) is a loopback address'], // NAT64
    ['[64:ff9b::a9fe:a9fe]', 'IPv4 169.254.169.254) is a cloud metadata address'],
    ['[2002:7f00:1::]', 'IPv4 127.0.0.1) is a loopback address'], // 6to4
    ['[2002:a00:5::]', 'IPv4 10.0.0.5) is a private address'],
    ['[::127.0.0.1]', 'IPv4 127.0.0.1) is a loopback address'], // IPv4-compatible
    ['[::ffff:0:7f00:1]', 'IPv4 127.0.0.1) is a loopback address'], // IPv4-translated
    ['[fec0::1]', 'fec0::1 is a private address'], // site-local
    ['[ff02::1]', 'ff02::1 is a multicast address'],
    ['[ff05::1:3]', 'ff05::1:3 is a multicast address'],
    ['[100::1]', '100::1 is a reserved address'], // discard
    ['[2001:db8::1]', '2001:db8::1 is a reserved address'], // documentation
    ['[2001::1]', '2001::1 is a reserved address'], // Teredo
    ['[64:ff9b:1::a00:5]', '64:ff9b:1::a00:5 is a reserved address'], // local-use NAT64
    ['224.0.0.251', '224.0.0.251 is a multicast address'],
    ['198.18.0.1', '198.18.0.1 is a reserved address'],
  ])('a remote server naming https://%s is refused without sending anything', async (host, reason) => {
    const sent = vi.fn(async () => new Response('{}'));
    vi.stubGlobal('fetch', sent);
    const attempt = serverFetch({ serverUrl: remote })(
      `https://${host}/.well-known/oauth-authorization-server`,
    );
    await expect(attempt).rejects.toThrow(
      /^refused to contact https:\/\/\S+ for the MCP server at https:\/\/93\.184\.216\.34: /,
    );
    await expect(attempt).rejects.toThrow(reason);
    expect(sent).not.toHaveBeenCalled();
  });

  it('DNS rebinding: a name is resolved once, and its answer is the one checked and connected to', async () => {
    // The first answer looks harmless to a check; every later one is loopback, where a server listens.
    const trap = await listening();
    const dns = answerDns((name, n) =>
      name === 'auth.rebind.test' ? (n === 0 ? '198.51.100.7' : '127.0.0.1') : undefined,
    );
    cleanups.push(dns.restore);
    const fetchFor = serverFetch({ serverUrl: remote });
    await expect(
      fetchFor(`https://auth.rebind.test:${trap.port}/.well-known/oauth-authorization-server`),
    ).rejects.toThrow(
      `refused to contact https://auth.rebind.test:${trap.port} for the MCP server at https://93.184.216.34: auth.rebind.test resolves to 198.51.100.7, which is a reserved address`,
    );
    expect(dns.lookups.get('auth.rebind.test')).toBe(1);
    expect(trap.connections()).toBe(0);
  });

  it("a redirect from the server's own origin is checked again: it cannot lead to loopback", async () => {
    const trap = await listening();
    const server = await listening((_req, res) => {
      res.writeHead(302, { location: `https://127.0.0.1:${trap.port}/latest/meta-data` }).end();
    });
    // The server is named by a hostname: remote, whatever its DNS answers (allowed by name here).
    const dns = answerDns((name) => (name === 'mcp.remote.test' ? '127.0.0.1' : undefined));
    cleanups.push(dns.restore);
    const serverUrl = new URL(`http://mcp.remote.test:${server.port}/mcp`);
    const fetchFor = serverFetch({ serverUrl, allowHosts: ['mcp.remote.test'] });
    await expect(fetchFor(new URL('/.well-known/oauth-protected-resource', serverUrl))).rejects.toThrow(
      `refused to contact https://127.0.0.1:${trap.port} (a redirect from ${serverUrl.origin}) for the MCP server at ${serverUrl.origin}: 127.0.0.1 is a loopback address`,
    );
    expect(server.connections()).toBe(1);
    expect(trap.connections()).toBe(0);
  });

  it("a remote server's hosts listed in its allowHosts are let through, and the refusal says so", async () => {
    const other = await listening();
    const dns = answerDns((name) => (name === 'sso.corp.test' ? '127.0.0.1' : undefined));
    cleanups.push(dns.restore);
    const target = `https://sso.corp.test:${other.port}/.well-known/oauth-authorization-server`;
    await expect(serverFetch({ serverUrl: remote })(target)).rejects.toThrow(
      "sso.corp.test resolves to 127.0.0.1, which is a loopback address (add sso.corp.test to this server's allowHosts to allow it)",
    );
    expect(other.connections()).toBe(0);
    // Let through, it is connected to (and answers plain HTTP to a TLS hello: the request fails there).
    await expect(serverFetch({ serverUrl: remote, allowHosts: ['*.corp.test'] })(target)).rejects.toThrow(
      'fetch failed',
    );
    expect(other.connections()).toBe(1);
  });

  it('a server named by a hostname is itself checked: DNS answering loopback is refused unless allowHosts lists it', async () => {
    // Whoever controls the name's DNS could point it at loopback or cloud metadata after start.
    const server = await listening();
    const dns = answerDns((name) => (name === 'mcp.remote.test' ? '127.0.0.1' : undefined));
    cleanups.push(dns.restore);
    const serverUrl = new URL(`http://mcp.remote.test:${server.port}/mcp`);
    await expect(serverFetch({ serverUrl })(serverUrl)).rejects.toThrow(
      `refused to contact ${serverUrl.origin} for the MCP server at ${serverUrl.origin}: mcp.remote.test resolves to 127.0.0.1, which is a loopback address (add mcp.remote.test to this server's allowHosts to allow it)`,
    );
    expect(server.connections()).toBe(0);
    // The operator's decision: listed, it is reached.
    const response = await serverFetch({ serverUrl, allowHosts: ['mcp.remote.test'] })(serverUrl);
    expect(await response.json()).toEqual({ issuer: 'local' });
    expect(server.connections()).toBe(1);
  });

  it('a server the config names by a private or loopback address may name others there (a local setup)', async () => {
    const other = await listening();
    const fetchFor = serverFetch({ serverUrl: new URL('http://127.0.0.1:1/mcp') });
    const response = await fetchFor(`http://127.0.0.1:${other.port}/.well-known/oauth-authorization-server`);
    expect(await response.json()).toEqual({ issuer: 'local' });
  });
});
