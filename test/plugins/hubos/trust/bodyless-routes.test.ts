import { describe, expect, it } from 'vitest';
import { KEY_A } from '../../../helpers/keys.ts';
import { serveAll } from './helpers.ts';
import { type RawAnswer, raw as rawRequest } from './raw-http.ts';

// Routes that read no body still change state: a page's form or text/plain post, which a browser
// sends anywhere without asking, must not reach them, nor any request the browser marks cross-site.

type Served = Awaited<ReturnType<typeof serveAll>>;

/** The API key every request of the test carries (none: a keyless local server). */
let auth: Record<string, string> = {};
const raw: typeof rawRequest = (url, options = {}) =>
  rawRequest(url, { ...options, headers: { ...auth, ...options.headers } });

/** One thing a state-changing route acts on, made afresh, and whether it is still there. */
interface Target {
  send(headers: Record<string, string>, body?: string): Promise<RawAnswer>;
  alive(): Promise<boolean>;
}

/** Every run calls `touch`, which waits for an approval: runs stay running until cancelled. */
const asking = Array.from({ length: 10 }, () => ({ toolCalls: [{ name: 'touch', input: {} }] }));

const json = { 'content-type': 'application/json' };
const mcpAccept = { accept: 'application/json, text/event-stream' };

async function until<T>(what: string, probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** The four routes, each with a fresh target: a running run, a running workflow run, a Cosmos agent, an MCP session. */
const routes: Record<string, (server: Served) => Promise<Target>> = {
  'POST /api/runs/:id/cancel': async ({ url }) => {
    const started = await raw(`${url}/api/agents/helper/run?async=true`, {
      method: 'POST',
      headers: json,
      body: '{"input":"touch it"}',
    });
    const { runId } = started.json();
    const status = async () => (await raw(`${url}/api/runs/${runId}`)).json().status;
    // The run waits for the approval of its tool call: it is running until something stops it.
    await until(
      'the approval',
      async () => (await raw(`${url}/api/runs/${runId}/approvals`)).json(),
      (body) => body.approvals.length === 1,
    );
    return {
      send: (headers, body) => raw(`${url}/api/runs/${runId}/cancel`, { method: 'POST', headers, body }),
      alive: async () => (await status()) === 'running',
    };
  },
  'POST /api/workflows/runs/:id/cancel': async ({ url }) => {
    const started = await raw(`${url}/api/workflows/hold/run`, {
      method: 'POST',
      headers: json,
      body: '{"input":{},"async":true}',
    });
    const { runId } = started.json();
    const status = async () => (await raw(`${url}/api/workflows/runs/${runId}`)).json().status;
    await until('the workflow run to start', status, (value) => value === 'running');
    return {
      send: (headers, body) =>
        raw(`${url}/api/workflows/runs/${runId}/cancel`, { method: 'POST', headers, body }),
      alive: async () => (await status()) === 'running',
    };
  },
  'DELETE /api/cosmos/agents/:id': async ({ url }) => {
    const id = `agent-${Math.random().toString(36).slice(2, 8)}`;
    const created = await raw(`${url}/api/cosmos/agents`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ agentId: id, templateId: 'helper' }),
    });
    expect(created.status, created.text).toBe(201);
    return {
      send: (headers, body) => raw(`${url}/api/cosmos/agents/${id}`, { method: 'DELETE', headers, body }),
      alive: async () => (await raw(`${url}/api/cosmos/agents/${id}`)).status === 200,
    };
  },
  'DELETE /mcp': async ({ url }) => {
    const init = await raw(`${url}/mcp`, {
      method: 'POST',
      headers: { ...json, ...mcpAccept },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const session = {
      'mcp-session-id': String(init.headers['mcp-session-id']),
      'mcp-protocol-version': '2025-06-18',
    };
    const ping = () =>
      raw(`${url}/mcp`, {
        method: 'POST',
        headers: { ...json, ...mcpAccept, ...session },
        body: '{"jsonrpc":"2.0","id":2,"method":"ping"}',
      });
    expect((await ping()).status).toBe(200);
    return {
      send: (headers, body) =>
        raw(`${url}/mcp`, { method: 'DELETE', headers: { ...session, ...headers }, body }),
      alive: async () => (await ping()).status === 200,
    };
  },
};

/** Bodies a page can send without asking: a form, text/plain, multipart, with or without content. */
const simpleBodies: { type: string; body?: string }[] = [
  { type: 'text/plain' },
  { type: 'text/plain;charset=UTF-8', body: '{"x":1}' },
  { type: 'application/x-www-form-urlencoded' },
  { type: 'application/x-www-form-urlencoded', body: 'a=1' },
  { type: 'multipart/form-data; boundary=x' },
  { type: 'multipart/form-data; boundary=x', body: '--x--\r\n' },
];

describe.each([
  { server: 'a keyless server', apiKeys: undefined },
  { server: 'a server with API keys', apiKeys: [KEY_A] },
])('a state-changing route that reads no body, on $server', ({ apiKeys }) => {
  const serve = () => {
    auth = apiKeys ? { authorization: `Bearer ${KEY_A}` } : {};
    return serveAll(apiKeys ? { apiKeys } : {}, asking, { permissions: { ask: ['demo:touch'] } });
  };
  for (const [route, make] of Object.entries(routes)) {
    it(`${route}: refuses form, text/plain and multipart posts, and cross-site requests, without an Origin`, async () => {
      const server = await serve();
      const target = await make(server);
      for (const { type, body } of simpleBodies) {
        const answer = await target.send({ 'content-type': type }, body);
        const what = `${type} ${body === undefined ? 'without a body' : 'with a body'}: ${answer.text}`;
        expect(answer.status, what).toBe(415);
        expect(answer.json().error.code, what).toBe('UNSUPPORTED_MEDIA_TYPE');
        expect(answer.json().error.message, what).toContain('Content-Type');
        expect(answer.json().error.message, what).toContain('application/json');
        expect(await target.alive(), what).toBe(true);
      }
      for (const site of ['cross-site', 'same-site']) {
        const answer = await target.send({ 'sec-fetch-site': site });
        expect(answer.status, `${site}: ${answer.text}`).toBe(403);
        expect(answer.json().error.code).toBe('ORIGIN_NOT_ALLOWED');
        expect(answer.json().error.message).toContain('Sec-Fetch-Site');
        expect(await target.alive(), site).toBe(true);
      }
      // Still there to act on: an API client's request does it.
      expect((await target.send({})).status).toBeLessThan(300);
      expect(await target.alive()).toBe(false);
    });

    it(`${route}: still serves API clients with no Origin and the server's own page`, async () => {
      const server = await serve();
      const forms: Record<string, string>[] = [
        {},
        { ...json },
        { origin: server.url, 'sec-fetch-site': 'same-origin' },
        { ...json, origin: server.url, 'sec-fetch-site': 'same-origin' },
        { 'sec-fetch-site': 'none' },
      ];
      for (const headers of forms) {
        const target = await make(server);
        const answer = await target.send(headers);
        const what = `${JSON.stringify(headers)}: ${answer.status} ${answer.text}`;
        expect(answer.status, what).toBeLessThan(300);
        expect(await target.alive(), what).toBe(false);
      }
    });
  }
});
