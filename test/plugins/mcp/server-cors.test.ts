import { describe, expect, it } from 'vitest';
import { serveMcp } from './server-helpers.ts';

describe('the /mcp endpoint and CORS', () => {
  it("lets a browser MCP client send MCP's headers and read the session id", async () => {
    const served = await serveMcp({ server: { cors: { origin: 'https://inspector.example' } } });
    try {
      const preflight = await fetch(`${served.url}/mcp`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://inspector.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'mcp-session-id, mcp-protocol-version, content-type',
        },
      });
      const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      expect(allowed).toContain('mcp-session-id');
      expect(allowed).toContain('mcp-protocol-version');
      const init = await fetch(`${served.url}/mcp`, {
        method: 'POST',
        headers: {
          origin: 'https://inspector.example',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'browser', version: '1' },
          },
        }),
      });
      expect(init.status).toBe(200);
      expect(init.headers.get('mcp-session-id')).toBeTruthy();
      expect((init.headers.get('access-control-expose-headers') ?? '').toLowerCase()).toContain(
        'mcp-session-id',
      );
      await init.body?.cancel();
    } finally {
      await served.close();
    }
  });

  it('refuses browser requests from other sites (DNS rebinding), and accepts its own origin', async () => {
    const served = await serveMcp();
    try {
      const initialize = (origin: string) =>
        fetch(`${served.url}/mcp`, {
          method: 'POST',
          headers: {
            origin,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 'page', version: '1' },
            },
          }),
        });
      const foreign = await initialize('http://attacker.example');
      expect(foreign.status).toBe(403);
      expect(JSON.stringify(await foreign.json())).toMatch(/add (it|its origin) to server\.cors\.origin/);
      const own = await initialize(served.url);
      expect(own.status).toBe(200);
      await own.body?.cancel();
    } finally {
      await served.close();
    }
  });
});
