import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { describe, expect, it } from 'vitest';
import { HttpSessions } from '../../../plugins/mcp/server/http-sessions.ts';

const initialize = () =>
  new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });

const status = (answer: Response | { status: number }) => answer.status;

describe('MCP HTTP sessions: caps', () => {
  it('one API key cannot take every session, even with concurrent initializes', async () => {
    // 20 sessions in all, so at most 2 per key.
    const sessions = new HttpSessions(
      () => new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } }),
      {
        maxBodyBytes: 1 << 20,
        idleMs: 60_000,
        maxSessions: 20,
      },
    );
    try {
      const burst = await Promise.all(
        Array.from({ length: 6 }, () => sessions.handle(initialize(), { id: 'key-a', kind: 'api-key' })),
      );
      expect(burst.map(status).sort()).toEqual([200, 200, 503, 503, 503, 503]);
      const refused = burst.find((answer) => status(answer) === 503) as { message: string };
      expect(refused.message).toContain('this API key has 2 MCP sessions open (at most 2)');
      expect(status(await sessions.handle(initialize(), { id: 'key-b', kind: 'api-key' }))).toBe(200);
      expect(sessions.size).toBe(3);
    } finally {
      await sessions.close(0);
    }
  });
});
