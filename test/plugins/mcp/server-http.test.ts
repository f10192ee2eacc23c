import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { defineTool } from '../../../core/index.ts';
import { ScriptedModel } from '../../../testing/index.ts';
import { connect, type Served, serveMcp, textOf } from './server-helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

const KEY = 'test-key-0123456789abcdef';
const OTHER_KEY = 'other-key-0123456789abcdef';

let served: Served | undefined;
const clients: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await served?.close();
  served = undefined;
});

async function setup(...args: Parameters<typeof serveMcp>) {
  served = await serveMcp(...args);
  return served;
}

async function client(url: string, options: Parameters<typeof connect>[1] = {}) {
  const connected = await connect(url, options);
  clients.push(connected.client);
  return connected.client;
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function postMcp(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('MCP server over Streamable HTTP', () => {
  it('lists the tools serve.tools selects and the ask_<agent> tools of serve.agents', async () => {
    const { url } = await setup();
    const mcp = await client(url);
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'filesystem_read',
      'filesystem_write',
      'filesystem_list',
      'filesystem_delete',
      'filesystem_search',
      'echo',
      'wait',
      'hold',
      'report',
      'ask_helper',
    ]);
    const echo = tools.find((tool) => tool.name === 'echo')!;
    expect(echo.description).toBe('Echoes its text.');
    expect(echo.inputSchema).toMatchObject({ type: 'object', required: ['text'] });
    const ask = tools.find((tool) => tool.name === 'ask_helper')!;
    expect(ask.description).toContain('Knows the answers.');
    expect(ask.inputSchema).toMatchObject({ required: ['message'], properties: { sessionId: {} } });
    expect(mcp.getServerVersion()?.name).toBe('hubos');

    const openapi: Json = await (await fetch(`${url}/api/openapi.json`)).json();
    expect(Object.keys(openapi.paths['/mcp'])).toEqual(['post', 'get', 'delete']);
  });

  it('calls a tool (defaults applied, object output as structuredContent) and reports failures as isError', async () => {
    const { url, workspace } = await setup();
    writeFileSync(join(workspace, 'hello.txt'), 'hi there\n');
    const mcp = await client(url);

    const echoed = await mcp.callTool({ name: 'echo', arguments: { text: 'ab' } });
    expect(echoed.isError).toBeFalsy();
    expect(echoed.structuredContent).toEqual({ echoed: 'ab', agentId: 'mcp' });
    expect(JSON.parse(textOf(echoed))).toEqual({ echoed: 'ab', agentId: 'mcp' });

    const read = await mcp.callTool({ name: 'filesystem_read', arguments: { path: 'hello.txt' } });
    expect(read.structuredContent).toMatchObject({ content: 'hi there\n' });

    const invalid = await mcp.callTool({ name: 'echo', arguments: { text: 3 } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain('invalid input for tool "echo"');
    expect(textOf(invalid)).toContain('"text" must be string');

    const hidden = await mcp.callTool({ name: 'hidden', arguments: {} });
    expect(hidden.isError).toBe(true);
    expect(textOf(hidden)).toContain('no tool named "hidden" is served here');

    const missing = await mcp.callTool({ name: 'filesystem_read', arguments: { path: 'nope.txt' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('tool "filesystem_read" failed');
  });

  it('refuses a call the policy denies, naming the rule and how to change it', async () => {
    const { url, workspace } = await setup();
    writeFileSync(join(workspace, 'keep.txt'), 'keep');
    const mcp = await client(url);
    const denied = await mcp.callTool({ name: 'filesystem_delete', arguments: { path: 'keep.txt' } });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain(`fs:delete (rule deny 'fs:delete')`);
    expect(textOf(denied)).toContain('permissions.deny');
    expect(existsSync(join(workspace, 'keep.txt'))).toBe(true);
  });

  it("makes an `ask` call one of the server's approvals: listed by GET /api/approvals and decided there when the client cannot elicit", async () => {
    const { url, workspace } = await setup({ server: { apiKeys: [KEY, OTHER_KEY] } });
    const mcp = await client(url, { headers: { authorization: `Bearer ${KEY}` } });
    const auth = { authorization: `Bearer ${KEY}` };
    const pending = (key = KEY) =>
      fetch(`${url}/api/approvals`, { headers: { authorization: `Bearer ${key}` } }).then(
        async (response) => ((await response.json()) as Json).approvals as Json[],
      );
    const call = mcp.callTool({ name: 'filesystem_write', arguments: { path: 'a.txt', content: 'x' } });
    await expect.poll(async () => (await pending()).length).toBe(1);
    let listed = await pending();
    expect(listed[0]).toMatchObject({
      agent: 'mcp',
      tool: 'filesystem_write',
      input: { path: 'a.txt', content: 'x' },
      permissions: ['fs:write'],
      rule: 'fs:write',
      status: 'pending',
      live: true,
    });
    expect(listed[0].principal).toMatch(/^key:/);
    // Another key's caller neither sees nor decides it.
    expect(await pending(OTHER_KEY)).toEqual([]);
    const { runId, callId } = listed[0];
    const decide = (key: string, approved: boolean) =>
      fetch(`${url}/api/runs/${runId}/approvals/${callId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ approved }),
      });
    expect((await decide(OTHER_KEY, true)).status).toBe(404);
    expect(existsSync(join(workspace, 'a.txt'))).toBe(false);
    const decided = await decide(KEY, true);
    expect(decided.status).toBe(200);
    expect(await decided.json()).toMatchObject({ status: 'approved' });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('x');
    expect(await pending()).toEqual([]);

    // Denied there, the call does not run and the client hears why.
    const refused = mcp.callTool({ name: 'filesystem_write', arguments: { path: 'b.txt', content: 'y' } });
    await expect.poll(async () => (await pending()).length).toBe(1);
    listed = await pending();
    const denied = await fetch(`${url}/api/runs/${listed[0].runId}/approvals/${listed[0].callId}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ approved: false, reason: 'not today' }),
    });
    expect(denied.status).toBe(200);
    const answer = await refused;
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toContain('denied by the user: not today');
    expect(existsSync(join(workspace, 'b.txt'))).toBe(false);
  });

  it('asks the user through elicitation: an approved call runs, a declined one does not', async () => {
    const { url, workspace } = await setup();
    const asked: string[] = [];
    let approve = true;
    const mcp = await client(url, {
      answer: (message) => {
        asked.push(message);
        return approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
      },
    });
    const ran = await mcp.callTool({
      name: 'filesystem_write',
      arguments: { path: 'approved.txt', content: 'yes' },
    });
    expect(ran.isError).toBeFalsy();
    expect(readFileSync(join(workspace, 'approved.txt'), 'utf8')).toBe('yes');
    expect(asked[0]).toContain('"filesystem_write"');
    expect(asked[0]).toContain(`fs:write (rule ask 'fs:write')`);
    expect(asked[0]).toContain('approved.txt');
    // The answer is the engine's approval decision: recorded like any other.
    const all: Json = await (await fetch(`${url}/api/approvals?all=true`)).json();
    expect(all.approvals).toMatchObject([
      { agent: 'mcp', tool: 'filesystem_write', status: 'approved', principal: 'local' },
    ]);

    approve = false;
    const refused = await mcp.callTool({
      name: 'filesystem_write',
      arguments: { path: 'refused.txt', content: 'no' },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('the user denied the call');
    expect(existsSync(join(workspace, 'refused.txt'))).toBe(false);
    expect(asked).toHaveLength(2);
    const after: Json = await (await fetch(`${url}/api/approvals?all=true`)).json();
    expect(after.approvals.map((approval: Json) => approval.status)).toEqual(['approved', 'denied']);
  });

  it('answers ask_<agent> with the agent run, relaying its approvals to the client', async () => {
    const { url, model, workspace } = await setup({
      script: [
        'The answer is 42.',
        { toolCalls: [{ name: 'filesystem_write', input: { path: 'by-agent.txt', content: 'agent' } }] },
        'I wrote the file.',
      ],
    });
    const asked: string[] = [];
    const mcp = await client(url, {
      answer: (message) => {
        asked.push(message);
        return { action: 'accept', content: { approve: true } };
      },
    });
    const answer = await mcp.callTool({ name: 'ask_helper', arguments: { message: 'What is the answer?' } });
    expect(answer.isError).toBeFalsy();
    expect(textOf(answer)).toBe('The answer is 42.');
    expect(JSON.stringify(model.requests[0]!.messages)).toContain('What is the answer?');

    const wrote = await mcp.callTool({ name: 'ask_helper', arguments: { message: 'Write it down.' } });
    expect(textOf(wrote)).toBe('I wrote the file.');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('"filesystem_write"');
    expect(readFileSync(join(workspace, 'by-agent.txt'), 'utf8')).toBe('agent');

    const invalid = await mcp.callTool({ name: 'ask_helper', arguments: {} });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain('missing required property "message"');
    const other = await mcp.callTool({ name: 'ask_other', arguments: { message: 'hi' } });
    expect(other.isError).toBe(true);
  });

  it('serves every agent but sub-agents with agents: true, and every tool without serve.tools', async () => {
    const { url } = await setup({ mcp: { serve: { agents: true } } });
    const names = (await (await client(url)).listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['bash', 'hidden', 'echo', 'ask_helper', 'ask_other']));
  });

  it("cancels the tool when the client cancels, and relays the tool's progress", async () => {
    const { url, probe } = await setup();
    const mcp = await client(url);
    const controller = new AbortController();
    const call = mcp.callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal });
    await probe.waiting.opened;
    controller.abort(new Error('user gave up'));
    await expect(call).rejects.toThrow();
    await probe.cancelled;

    const progress: { progress: number; message?: string }[] = [];
    const reported = await mcp.callTool({ name: 'report', arguments: {} }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    expect(textOf(reported)).toBe('reported');
    expect(progress).toEqual([
      { progress: 1, message: 'half way' },
      { progress: 2, message: '{"done":2}' },
    ]);
  });

  it('announces tools/list_changed when tools or agents come and go at run time', async () => {
    const { url, kernel } = await setup({ mcp: { serve: { tools: ['echo', 'late_*'], agents: true } } });
    const mcp = await client(url);
    let notified!: () => void;
    let changed!: Promise<void>;
    const expectChange = () => {
      changed = new Promise<void>((resolve) => {
        notified = resolve;
      });
    };
    expectChange();
    mcp.setNotificationHandler(ToolListChangedNotificationSchema, () => notified());
    // The client opens its event stream in the background: register until one announcement lands.
    for (let i = 0; ; i++) {
      kernel.registry.register(
        defineTool({
          name: `late_${i}`,
          description: 'Registered late.',
          inputSchema: { type: 'object', properties: {} },
          handler: () => `late ${i}`,
        }),
      );
      const timer = new Promise((resolve) => setTimeout(() => resolve('again'), 200));
      if ((await Promise.race([changed.then(() => 'done'), timer])) === 'done') break;
    }
    const names = (await mcp.listTools()).tools.map((tool) => tool.name);
    expect(names[0]).toBe('echo');
    expect(names.slice(1, -2).every((name) => name.startsWith('late_'))).toBe(true);
    expect(names.slice(-2)).toEqual(['ask_helper', 'ask_other']);
    expect(textOf(await mcp.callTool({ name: 'late_0', arguments: {} }))).toBe('late 0');

    expectChange();
    kernel.registry.unregister('late_0');
    await changed;
    expect((await mcp.listTools()).tools.map((tool) => tool.name)).not.toContain('late_0');

    expectChange();
    await kernel.createAgent({ name: 'newcomer', model: new ScriptedModel(['Hello.']) });
    await changed;
    expect(textOf(await mcp.callTool({ name: 'ask_newcomer', arguments: { message: 'hi' } }))).toBe('Hello.');
    expectChange();
    await kernel.destroyAgent('newcomer');
    await changed;
    expect((await mcp.listTools()).tools.map((tool) => tool.name)).not.toContain('ask_newcomer');
  });

  it('is behind the API-key auth, and a session belongs to the key that opened it', async () => {
    const { url } = await setup({ server: { apiKeys: [KEY, OTHER_KEY] } });
    const anonymous = await postMcp(url, INIT);
    expect(anonymous.status).toBe(401);
    const { client: mcp, transport } = await connect(url, { headers: { authorization: `Bearer ${KEY}` } });
    clients.push(mcp);
    expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);

    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const session = { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' };
    const stolen = await postMcp(url, list, { ...session, authorization: `Bearer ${OTHER_KEY}` });
    expect(stolen.status).toBe(404);
    expect(((await stolen.json()) as Json).error.message).toContain('Start a new session');
    const own = await postMcp(url, list, { ...session, authorization: `Bearer ${KEY}` });
    expect(own.status).toBe(200);
    await own.body?.cancel();
  });

  it('refuses requests without a session, bodies over the limit, and other methods', async () => {
    const { url } = await setup({ server: { bodyLimit: 1024 } });
    const noSession = await postMcp(url, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    expect(noSession.status).toBe(400);
    const big = await postMcp(url, { ...INIT, padding: 'x'.repeat(2048) });
    expect(big.status).toBe(413);
    expect(((await big.json()) as Json).error.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await fetch(`${url}/mcp`, { method: 'PUT' })).status).toBe(405);
  });

  it('is off with serve: false, and at serve.path when given', async () => {
    const off = await setup({ mcp: { serve: false } });
    expect((await postMcp(off.url, INIT)).status).toBe(404);
    const openapi: Json = await (await fetch(`${off.url}/api/openapi.json`)).json();
    expect(openapi.paths['/mcp']).toBeUndefined();
    await off.close();

    const { url } = await setup({ mcp: { serve: { path: '/tools/mcp', tools: ['echo'] } } });
    expect((await postMcp(url, INIT)).status).toBe(404);
    const mcp = await client(url, { path: '/tools/mcp' });
    expect((await mcp.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
  });

  it('on shutdown lets a running call finish, then ends the event streams cleanly', async () => {
    const { url, kernel, probe } = await setup();
    const mcp = await client(url);
    const call = mcp.callTool({ name: 'hold', arguments: {} });
    await probe.held.opened;
    // A raw session with its own event stream, to see how the server ends it.
    const init = await postMcp(url, INIT);
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.body?.cancel();
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    await postMcp(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    const stream = await fetch(`${url}/mcp`, { headers: { ...headers, accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();

    const closing = kernel.close();
    probe.release.open();
    expect(textOf(await call)).toBe('released');
    // Ended by the server (done), not cut by the forced close of the connections (an error).
    for (;;) if ((await reader.read()).done) break;
    await closing;
  });
});
