import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../../plugins/mcp/client/private-address.ts';
import { serverFetch } from '../../../plugins/mcp/client/server-fetch.ts';

describe("an MCP server's fetch: other origins it names", () => {
  it('knows the addresses off the public internet', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(isPrivateAddress(address), address).toBe(false);
  });

  it('a public server cannot steer HubOS at private addresses or plain http; its own origin is unaffected', async () => {
    const fetchFor = serverFetch({ serverUrl: new URL('https://93.184.216.34/mcp') });
    await expect(fetchFor('http://127.0.0.1:9/.well-known/oauth-authorization-server')).rejects.toThrow(
      'refused to contact http://127.0.0.1:9 for the MCP server at https://93.184.216.34: it is not https',
    );
    for (const target of [
      'https://169.254.169.254/latest/meta-data',
      'https://localhost:8443/token',
      'https://[::1]/register',
    ])
      await expect(fetchFor(target)).rejects.toThrow('it is a private or loopback address');
  });

  it('a server on a private or loopback address may name others there (a local setup)', async () => {
    const other = createServer((_req, res) => res.end('{"issuer":"local"}'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = other.address() as AddressInfo;
      const fetchFor = serverFetch({ serverUrl: new URL('http://127.0.0.1:1/mcp') });
      const response = await fetchFor(`http://127.0.0.1:${port}/.well-known/oauth-authorization-server`);
      expect(await response.json()).toEqual({ issuer: 'local' });
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
