/**
 * Redirects an MCP server answers with are followed by `serverFetch` itself, hop by hop, each
 * under the rules of the first request: another origin must be https (for a remote server), the
 * configured headers go to the server's origin only, and every hop's address is checked. Servers
 * listen on 127.0.0.x; names resolved there by a test resolver and listed in the config's
 * `allowHosts` stand for public hosts.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serverFetch } from '../../../plugins/mcp/client/server-fetch.ts';
import { answerDns } from '../../helpers/dns-answers.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server on `host` that records the headers of each request it gets. */
async function recording(host: string, handler?: (path: string) => [number, Record<string, string>?]) {
  const seen: { path: string; method: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers, body });
      const [status, headers] = handler?.(req.url ?? '') ?? [200];
      res.writeHead(status, headers).end(status === 200 ? '{"ok":true}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as AddressInfo).port, seen };
}

const headers = { 'x-api-key': 'SECRET' };

describe("an MCP server's fetch: redirects", () => {
  it('a remote server cannot redirect HubOS to plain http on another origin; nothing is sent there', async () => {
    const other = await recording('127.0.0.2');
    const server = await recording('127.0.0.1', () => [
      307,
      { location: `http://other.test:${other.port}/leak` },
    ]);
    const dns = answerDns((name) =>
      name === 'mcp.remote.test' ? '127.0.0.1' : name === 'other.test' ? '127.0.0.2' : undefined,
    );
    cleanups.push(dns.restore);
    const serverUrl = new URL(`http://mcp.remote.test:${server.port}/mcp`);
    // Both hosts are allowed: only the https rule stands between the redirect and other.test.
    const fetchFor = serverFetch({ serverUrl, headers, allowHosts: ['mcp.remote.test', 'other.test'] });
    await expect(fetchFor(serverUrl, { method: 'POST', headers, body: '{}' })).rejects.toThrow(
      `refused to contact http://other.test:${other.port} (a redirect from ${serverUrl.origin}) for the MCP server at ${serverUrl.origin}: it is not https (only a server the config names by a loopback or private address, or localhost, may name a plain http one)`,
    );
    expect(server.seen).toHaveLength(1);
    expect(other.seen).toHaveLength(0);
  });

  it('configured headers and credentials are never sent to another origin a redirect leads to', async () => {
    const other = await recording('127.0.0.2');
    const server = await recording('127.0.0.1', () => [
      307,
      { location: `http://127.0.0.2:${other.port}/elsewhere` },
    ]);
    // Named by a loopback address: a local setup, where plain http to another origin is allowed.
    const serverUrl = new URL(`http://127.0.0.1:${server.port}/mcp`);
    const fetchFor = serverFetch({ serverUrl, headers });
    const response = await fetchFor(serverUrl, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer TOKEN', 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0"}',
    });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(server.seen[0]!.headers['x-api-key']).toBe('SECRET');
    expect(other.seen).toHaveLength(1);
    expect(other.seen[0]).toMatchObject({ method: 'POST', body: '{"jsonrpc":"2.0"}' });
    expect(other.seen[0]!.headers['x-api-key']).toBeUndefined();
    expect(other.seen[0]!.headers.authorization).toBeUndefined();
  });

  it('a same-origin redirect is followed, headers and body kept', async () => {
    const server = await recording('127.0.0.1', (path) =>
      path === '/mcp' ? [308, { location: '/mcp/v2' }] : [200, { 'content-type': 'application/json' }],
    );
    const dns = answerDns((name) => (name === 'mcp.remote.test' ? '127.0.0.1' : undefined));
    cleanups.push(dns.restore);
    const serverUrl = new URL(`http://mcp.remote.test:${server.port}/mcp`);
    const fetchFor = serverFetch({ serverUrl, headers, allowHosts: ['mcp.remote.test'] });
    const response = await fetchFor(serverUrl, { method: 'POST', headers, body: '{"id":1}' });
    expect(response).toBeInstanceOf(Response);
    expect(await response.json()).toEqual({ ok: true });
    expect(server.seen.map(({ path, method, body }) => [path, method, body])).toEqual([
      ['/mcp', 'POST', '{"id":1}'],
      ['/mcp/v2', 'POST', '{"id":1}'],
    ]);
    expect(server.seen[1]!.headers['x-api-key']).toBe('SECRET');
  });

  it('a redirect loop is stopped with an error, not handed over as an answer', async () => {
    const server = await recording('127.0.0.1', () => [302, { location: '/again' }]);
    const serverUrl = new URL(`http://127.0.0.1:${server.port}/mcp`);
    await expect(serverFetch({ serverUrl })(serverUrl)).rejects.toThrow(
      `too many redirects from ${serverUrl.origin}/mcp: stopped after 10`,
    );
    expect(server.seen).toHaveLength(11);
  });

  it("a caller that asks for redirect: 'manual' gets the redirect itself", async () => {
    const server = await recording('127.0.0.1', () => [307, { location: 'http://127.0.0.2:1/x' }]);
    const serverUrl = new URL(`http://127.0.0.1:${server.port}/mcp`);
    const response = await serverFetch({ serverUrl })(serverUrl, { redirect: 'manual' });
    expect(response.status).toBe(307);
    expect(response.headers.get('location')).toBe('http://127.0.0.2:1/x');
    expect(server.seen).toHaveLength(1);
  });
});
