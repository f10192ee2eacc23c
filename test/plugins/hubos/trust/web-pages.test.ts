import { describe, expect, it } from 'vitest';
import { effects, serveAll } from './helpers.ts';
import { raw } from './raw-http.ts';

const json = { 'content-type': 'application/json' };
const mcpInit = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
});

/** The state-changing requests a page would try: run an agent, create an agent, run a workflow. */
const attacks = [
  { path: '/api/agents/helper/run', body: JSON.stringify({ input: 'touch it' }) },
  { path: '/api/cosmos/agents', body: JSON.stringify({ agentId: 'evil', templateId: 'helper' }) },
  { path: '/api/workflows/record/run', body: JSON.stringify({ input: {} }) },
];

describe('a web page against a keyless local server', () => {
  it('gets 403 HOST_NOT_ALLOWED under a rebound name, on every kind of route', async () => {
    const { url, port } = await serveAll();
    const evil = { host: `evil.example:${port}` };
    for (const path of [
      '/health',
      '/',
      '/ui/app.js',
      '/api/agents',
      '/api/openapi.json',
      '/.well-known/agent-card.json',
    ]) {
      const answer = await raw(`${url}${path}`, { headers: evil });
      expect(answer.status, path).toBe(403);
      expect(answer.json().error.code, path).toBe('HOST_NOT_ALLOWED');
    }
    for (const { path, body } of attacks) {
      const answer = await raw(`${url}${path}`, { method: 'POST', headers: { ...evil, ...json }, body });
      expect(answer.status, path).toBe(403);
    }
    const preflight = await raw(`${url}/api/agents/helper/run`, {
      method: 'OPTIONS',
      headers: { ...evil, origin: `http://evil.example:${port}`, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    const mcp = await raw(`${url}/mcp`, {
      method: 'POST',
      headers: {
        ...evil,
        ...json,
        origin: `http://evil.example:${port}`,
        accept: 'application/json, text/event-stream',
      },
      body: mcpInit,
    });
    expect(mcp.status).toBe(403);
    expect(mcp.text).toContain('server.allowedHosts');
    expect(effects).toEqual([]);
  });

  it('answers loopback names and addresses, and the hosts it is told', async () => {
    const { url, port } = await serveAll({ allowedHosts: ['agents.example.com', '.corp.example'] });
    for (const host of [
      'localhost',
      '127.0.0.1',
      '[::1]',
      'LOCALHOST',
      'app.localhost',
      '10.0.0.7',
      'agents.example.com',
      'corp.example',
      'a.b.corp.example',
    ]) {
      const answer = await raw(`${url}/health`, { headers: { host: `${host}:${port}` } });
      expect(answer.status, host).toBe(200);
    }
    for (const host of [
      'example.com',
      'agents.example.com.evil.example',
      'evilcorp.example',
      'localhost.evil.example',
    ]) {
      const answer = await raw(`${url}/health`, { headers: { host: `${host}:${port}` } });
      expect(answer.status, host).toBe(403);
    }
  });

  it('refuses a state-changing request from another origin, and starts nothing', async () => {
    const { url, port } = await serveAll();
    for (const origin of ['http://evil.example', `http://localhost:${Number(port) + 1}`, 'null']) {
      for (const { path, body } of attacks) {
        const answer = await raw(`${url}${path}`, { method: 'POST', headers: { ...json, origin }, body });
        expect(answer.status, `${origin} ${path}`).toBe(403);
        expect(answer.json().error.code).toBe('ORIGIN_NOT_ALLOWED');
      }
    }
    const crossSite = await raw(`${url}${attacks[0]!.path}`, {
      method: 'POST',
      headers: { ...json, 'sec-fetch-site': 'cross-site' },
      body: attacks[0]!.body,
    });
    expect(crossSite.status).toBe(403);
    expect(effects).toEqual([]);
    const list = await raw(`${url}/api/cosmos/agents`);
    expect(list.json().agents.map((a: { id: string }) => a.id)).not.toContain('evil');
  });

  it('reads no form or text/plain post as JSON (415), so a simple request starts nothing', async () => {
    const { url } = await serveAll();
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      undefined,
    ]) {
      for (const { path, body } of attacks) {
        const answer = await raw(`${url}${path}`, {
          method: 'POST',
          headers: type === undefined ? {} : { 'content-type': type },
          body,
        });
        expect(answer.status, `${type} ${path}`).toBe(415);
        expect(answer.json().error).toMatchObject({
          code: 'UNSUPPORTED_MEDIA_TYPE',
          message: expect.stringContaining('application/json'),
        });
      }
    }
    const mcp = await raw(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
      body: mcpInit,
    });
    expect(mcp.status).toBe(415);
    const agui = await raw(`${url}/agui/helper`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(agui.status).toBe(415);
    expect(effects).toEqual([]);
  });

  it('serves its own page, JSON with its own origin, and the origins server.cors lists', async () => {
    const { url, port } = await serveAll({ cors: { origin: 'https://app.example' } }, [
      { text: 'one' },
      { text: 'two' },
      { text: 'three' },
      { text: 'four' },
    ]);
    const run = (headers: Record<string, string>) =>
      raw(`${url}/api/agents/helper/run`, {
        method: 'POST',
        headers: { ...json, ...headers },
        body: '{"input":"hi"}',
      });
    expect((await run({ origin: url, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await run({ origin: `http://localhost:${port}`, host: `localhost:${port}` })).status).toBe(200);
    expect((await run({ origin: 'https://app.example', 'sec-fetch-site': 'cross-site' })).status).toBe(200);
    expect((await run({ 'content-type': 'text/json' })).status).toBe(415);
    expect((await run({ 'content-type': 'application/merge-patch+json; charset=utf-8' })).status).toBe(200);
    const page = await raw(`${url}/`);
    expect(page.status).toBe(200);
  });

  it('never reflects the Host header in the public agent card', async () => {
    const plain = await serveAll();
    const card = await raw(`${plain.url}/.well-known/agent-card.json`, {
      headers: { host: `10.9.9.9:${plain.port}` },
    });
    expect(card.status).toBe(200);
    expect(card.text).not.toContain('10.9.9.9');
    expect(card.json().url).toBe(`${plain.url}/a2a/helper`);
  });

  it('names the public URL in cards and allows its host and origin', async () => {
    const { url, port } = await serveAll({ publicUrl: 'https://agents.example.com/' });
    const card = await raw(`${url}/.well-known/agent-card.json`, {
      headers: { host: `agents.example.com:${port}` },
    });
    expect(card.json().url).toBe('https://agents.example.com/a2a/helper');
    const run = await raw(`${url}/api/agents/helper/run`, {
      method: 'POST',
      headers: { ...json, host: 'agents.example.com', origin: 'https://agents.example.com' },
      body: '{"input":"touch"}',
    });
    expect(run.status).toBe(200);
  });
});
