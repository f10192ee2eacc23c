import { describe, expect, it } from 'vitest';
import { effects, serveAll } from './helpers.ts';
import { raw } from './raw-http.ts';

const json = { 'content-type': 'application/json' };
const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const wide = (keys: number) => `{${Array.from({ length: keys }, (_, i) => `"k${i}":0`).join(',')}}`;

describe('bounded JSON input', () => {
  it('answers 400 naming the limit for 10k-deep JSON on every route and protocol, never a 500', async () => {
    const { url } = await serveAll();
    const bodies: [string, string][] = [
      ['/api/agents/helper/run', `{"input":"hi","context":${deep(10_000)}}`],
      ['/api/cosmos/agents', `{"agentId":"x","templateId":"helper","metadata":${deep(10_000)}}`],
      ['/api/workflows/record/run', `{"input":${deep(10_000)}}`],
      ['/agui/helper', `{"threadId":"t","runId":"r","messages":[],"state":${deep(10_000)}}`],
      ['/api/agents/helper/run', `[${'['.repeat(100_000)}${']'.repeat(100_000)}]`],
    ];
    for (const [path, body] of bodies) {
      const answer = await raw(`${url}${path}`, { method: 'POST', headers: json, body });
      expect(answer.status, path).toBe(400);
      expect(answer.json().error, path).toMatchObject({
        code: 'JSON_TOO_COMPLEX',
        message: expect.stringContaining('64 levels'),
      });
    }
    const mcp = await raw(`${url}/mcp`, {
      method: 'POST',
      headers: { ...json, accept: 'application/json, text/event-stream' },
      body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":${deep(10_000)}}`,
    });
    expect(mcp.status).toBe(400);
    expect(mcp.json().error).toMatchObject({ code: -32700, message: expect.stringContaining('64 levels') });
    const a2a = await raw(`${url}/a2a/helper`, { method: 'POST', headers: json, body: deep(10_000) });
    expect(a2a.json().error.message).toContain('64 levels');
    expect(effects).toEqual([]);
  });

  it('takes 64 levels, and refuses an object with absurdly many keys', async () => {
    const { url } = await serveAll();
    const fine = await raw(`${url}/api/cosmos/agents`, {
      method: 'POST',
      headers: json,
      body: `{"agentId":"deep","templateId":"helper","metadata":${deep(63)}}`,
    });
    expect(fine.status).toBe(201);
    const tooWide = await raw(`${url}/api/cosmos/agents`, {
      method: 'POST',
      headers: json,
      body: `{"agentId":"x","templateId":"helper","metadata":${wide(20_000)}}`,
    });
    expect(tooWide.status).toBe(400);
    expect(tooWide.json().error.message).toContain('10000 keys');
    // Braces inside strings are text, not nesting.
    const braces = await raw(`${url}/api/cosmos/agents`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ agentId: 'y', templateId: 'helper', metadata: { note: '{['.repeat(5_000) } }),
    });
    expect(braces.status).toBe(201);
  });
});
