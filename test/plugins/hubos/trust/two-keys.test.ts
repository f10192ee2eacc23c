import { describe, expect, it } from 'vitest';
import { keyPrincipal } from '../../../../plugins/hubos/index.ts';
import { API_KEYS, KEY_A, KEY_B, KEY_OPS } from '../../../helpers/keys.ts';
import { connect } from '../../mcp/server-helpers.ts';
import { keyedClient, userText } from '../a2a/helpers.ts';
import { serveAll, touchedFor } from './helpers.ts';
import { raw } from './raw-http.ts';

const apiKeys = API_KEYS;

function as(key: string) {
  return (url: string, method = 'GET', body?: unknown) =>
    raw(url, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}
const a = as(KEY_A);
const b = as(KEY_B);
const ops = as(KEY_OPS);

/** Everything the model was sent, as one string: what it "saw". */
const seen = (requests: { messages: unknown }[]) => JSON.stringify(requests.map((r) => r.messages));

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('each API key is its own identity', () => {
  it("keeps A's runs and approvals from B (404, as if they did not exist); the admin sees them", async () => {
    const { url } = await serveAll(
      { apiKeys },
      [{ toolCalls: [{ name: 'touch', input: {} }] }, { text: 'Touched.' }],
      { permissions: { ask: ['demo:touch'] } },
    );
    const started = await a(`${url}/api/agents/helper/run?async=true`, 'POST', { input: 'touch it' });
    expect(started.status).toBe(202);
    const { runId } = started.json();
    await until(async () => (await a(`${url}/api/approvals`)).json().approvals.length === 1);
    const [approval] = (await a(`${url}/api/approvals`)).json().approvals;
    expect(approval).toMatchObject({ runId, status: 'pending', principal: keyPrincipal(KEY_A).id });

    expect((await b(`${url}/api/runs/${runId}`)).status).toBe(404);
    expect((await b(`${url}/api/runs/${runId}/approvals`)).status).toBe(404);
    expect((await b(`${url}/api/approvals`)).json().approvals).toEqual([]);
    const decided = await b(`${url}/api/runs/${runId}/approvals/${approval.callId}`, 'POST', {
      approved: true,
    });
    expect(decided.status).toBe(404);
    expect(decided.json().error.code).toBe('RUN_NOT_FOUND');
    expect((await b(`${url}/api/runs/${runId}/cancel`, 'POST')).status).toBe(404);
    expect((await a(`${url}/api/runs/${runId}`)).json().status).toBe('running');
    expect((await a(`${url}/api/runs/${runId}/approvals`)).json().approvals[0].status).toBe('pending');

    expect((await ops(`${url}/api/approvals`)).json().approvals).toHaveLength(1);
    expect((await ops(`${url}/api/runs/${runId}`)).json()).toMatchObject({ owner: keyPrincipal(KEY_A).id });

    expect(
      (await a(`${url}/api/runs/${runId}/approvals/${approval.callId}`, 'POST', { approved: true })).status,
    ).toBe(200);
    await until(async () => (await a(`${url}/api/runs/${runId}`)).json().status !== 'running');
    expect((await a(`${url}/api/runs/${runId}`)).json().status).toBe('completed');
    expect(touchedFor).toEqual([keyPrincipal(KEY_A).id]);
    expect((await b(`${url}/api/runs/${runId}`)).status).toBe(404);
  });

  it("gives B a conversation of its own under A's session id: the model never sees A's messages", async () => {
    const { url, model } = await serveAll({ apiKeys }, [
      { text: 'Noted.' },
      { text: 'Hello B.' },
      { text: 'Hi A.' },
    ]);
    await a(`${url}/api/agents/helper/run`, 'POST', { input: 'my secret is 4242', sessionId: 'shared' });
    await b(`${url}/api/agents/helper/run`, 'POST', { input: 'what was the secret?', sessionId: 'shared' });
    expect(seen(model.requests.slice(1, 2))).not.toContain('4242');
    await a(`${url}/api/agents/helper/run`, 'POST', { input: 'remind me', sessionId: 'shared' });
    expect(seen(model.requests.slice(2))).toContain('4242');
    expect(seen(model.requests.slice(2))).not.toContain('what was the secret');
  });

  it("keeps A's AG-UI thread from B", async () => {
    const { url, model } = await serveAll({ apiKeys }, [{ text: 'Noted.' }, { text: 'Hello B.' }]);
    const thread = (key: string, text: string) =>
      as(key)(`${url}/agui/helper`, 'POST', {
        threadId: 'thread-1',
        runId: `r-${key}`,
        messages: [{ id: `m-${key}`, role: 'user', content: text }],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      });
    expect((await thread(KEY_A, 'my secret is 4242')).status).toBe(200);
    expect((await thread(KEY_B, 'what did I say?')).status).toBe(200);
    expect(seen(model.requests.slice(1))).not.toContain('4242');
  });

  it("keeps A's A2A tasks and contexts from B", async () => {
    const { url, model } = await serveAll({ apiKeys }, [{ text: 'Noted.' }, { text: 'Hello B.' }]);
    const client = (key: string) => keyedClient(`${url}/a2a/helper/`, key);
    const clientA = await client(KEY_A);
    const task = (await clientA.sendMessage(userText('my secret is 4242'))) as {
      id: string;
      contextId: string;
    };
    const rpc = (key: string, method: string, params: unknown) =>
      as(key)(`${url}/a2a/helper`, 'POST', { jsonrpc: '2.0', id: 1, method, params });
    const v1 = (key: string, method: string, params: unknown) =>
      raw(`${url}/a2a/helper`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
    expect((await v1(KEY_A, 'GetTask', { id: task.id })).json().result.id).toBe(task.id);
    expect((await v1(KEY_B, 'GetTask', { id: task.id })).json().error.message).toMatch(/not found/i);
    expect((await v1(KEY_OPS, 'GetTask', { id: task.id })).json().result.id).toBe(task.id);
    expect((await v1(KEY_B, 'ListTasks', {})).json().result.tasks).toEqual([]);
    expect((await v1(KEY_A, 'ListTasks', {})).json().result.tasks).toHaveLength(1);
    expect((await v1(KEY_B, 'CancelTask', { id: task.id })).json().error.message).toMatch(/not found/i);
    expect((await rpc(KEY_B, 'tasks/get', { id: task.id })).json().error).toBeDefined();
    // B writing into A's context gets a conversation of its own.
    const clientB = await client(KEY_B);
    await clientB.sendMessage({ ...userText('what did I say?'), contextId: task.contextId } as never);
    expect(seen(model.requests.slice(1))).not.toContain('4242');
  });

  it("keeps A's MCP ask_<agent> session from B, and tells tools who called", async () => {
    const { url, model } = await serveAll({ apiKeys }, [{ text: 'Noted.' }, { text: 'Hello B.' }], {
      mcp: { serve: { tools: ['touch'], agents: ['helper'] } },
    });
    const mcpA = (await connect(url, { headers: { authorization: `Bearer ${KEY_A}` } })).client;
    const mcpB = (await connect(url, { headers: { authorization: `Bearer ${KEY_B}` } })).client;
    try {
      await mcpA.callTool({
        name: 'ask_helper',
        arguments: { message: 'my secret is 4242', sessionId: 's' },
      });
      await mcpB.callTool({ name: 'ask_helper', arguments: { message: 'what did I say?', sessionId: 's' } });
      expect(seen(model.requests.slice(1))).not.toContain('4242');
      await mcpB.callTool({ name: 'touch', arguments: {} });
      expect(touchedFor).toEqual([keyPrincipal(KEY_B).id]);
    } finally {
      await Promise.all([mcpA.close(), mcpB.close()]);
    }
  });

  it('rate limits wrong keys per client address (429 with Retry-After), even with rateLimit off', async () => {
    const { url } = await serveAll({ apiKeys, rateLimit: { max: 50 } });
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) {
      const answer = await as(`wrong-key-${String(i).padStart(12, '0')}`)(`${url}/api/agents`);
      statuses.push(answer.status);
      if (answer.status === 429) expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100);
    const off = await serveAll({ apiKeys, rateLimit: false });
    for (let i = 0; i < 20; i++) await as(`wrong-key-${i}-padding-pad`)(`${off.url}/api/agents`);
    expect((await as('wrong-key-last-padding')(`${off.url}/api/agents`)).status).toBe(429);
  });

  it('counts wrong keys per client behind a trusted proxy, and ignores X-Forwarded-For from anyone else', async () => {
    const wrong = (url: string, forwardedFor: string) =>
      raw(`${url}/api/agents`, {
        headers: { authorization: 'Bearer wrong-key-0123456789ab', 'x-forwarded-for': forwardedFor },
      });
    const proxied = await serveAll({ apiKeys, trustProxy: ['127.0.0.1'] });
    for (let i = 0; i < 20; i++) expect((await wrong(proxied.url, '203.0.113.9')).status).toBe(401);
    expect((await wrong(proxied.url, '203.0.113.9')).status).toBe(429);
    // Another client behind the same proxy keeps its own count, and a valid key works for it.
    expect((await wrong(proxied.url, '203.0.113.10')).status).toBe(401);
    const valid = await raw(`${proxied.url}/api/agents`, {
      headers: { authorization: `Bearer ${KEY_A}`, 'x-forwarded-for': '203.0.113.11' },
    });
    expect(valid.status).toBe(200);
    // Without trustProxy the header is the client's word: changing it escapes nothing.
    const direct = await serveAll({ apiKeys });
    for (let i = 0; i < 20; i++) await wrong(direct.url, `198.51.100.${i}`);
    expect((await wrong(direct.url, '198.51.100.200')).status).toBe(429);
  });

  it('marks the public routes in the OpenAPI document with security: []', async () => {
    const { url } = await serveAll({ apiKeys });
    const doc = (await a(`${url}/api/openapi.json`)).json();
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/a2a/{name}/.well-known/agent-card.json'].get.security).toEqual([]);
    expect(doc.paths['/api/agents'].get.security).toBeUndefined();
  });

  it('refuses keys that would blur identities, saying how to fix them', async () => {
    await expect(serveAll({ apiKeys: ['short'] })).rejects.toThrow(/at least 16 characters/);
    await expect(serveAll({ apiKeys: [KEY_A, KEY_A] })).rejects.toThrow(/listed twice/);
    await expect(
      serveAll({
        apiKeys: [
          { key: KEY_A, id: 'ann' },
          { key: KEY_B, id: 'ann' },
        ],
      }),
    ).rejects.toThrow(/id "ann"/);
  });
});
