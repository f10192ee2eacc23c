import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defineTool, type Kernel, type Plugin, SqliteStore } from '../../../core/index.ts';
import cosmos from '../../../plugins/cosmos/index.ts';
import hubos, { keyPrincipal } from '../../../plugins/hubos/index.ts';
import mcp from '../../../plugins/mcp/index.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';
import { API_KEYS, callAs, KEY_A, KEY_B, KEY_OPS } from '../../helpers/keys.ts';
import { connect } from '../mcp/server-helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

const A = keyPrincipal(KEY_A).id;
const B = keyPrincipal(KEY_B).id;

const dir = mkdtempSync(join(tmpdir(), 'cosmos-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.close();
  kernel = undefined;
});

/** Tools a template may or may not give, and a model provider `scripted` (answers "ok"). */
const fixtures: Plugin = {
  name: 'fixtures',
  apply(k) {
    k.hooks.registerTools.tap('fixtures', (registry) => {
      for (const name of ['fs_read', 'fs_write', 'bash', 'http_get', 'http_post'])
        registry.register(
          defineTool({
            name,
            description: name,
            inputSchema: { type: 'object', properties: {} },
            handler: () => name,
          }),
        );
    });
    k.hooks.registerModels.tap('fixtures', (models) =>
      models.register({
        id: 'scripted',
        languageModel: (modelId) => new ScriptedModel(['ok', 'ok', 'ok'], { modelId }),
      }),
    );
  },
};

/** Cosmos and HubOS with keys A, B (plain) and ops (admin), or without keys; persisted in `file`. */
async function serve(keys = true, file?: string) {
  kernel = await bootKernel({
    ...(file ? { store: new SqliteStore(file) } : {}),
    plugins: [
      fixtures,
      cosmos({ maxAgents: 10, persist: file !== undefined }),
      mcp(),
      hubos({
        port: 0,
        rateLimit: false,
        ...(keys ? { apiKeys: API_KEYS } : {}),
      }),
    ],
    config: {
      mcp: { serve: { tools: [], agents: ['*'] } },
      agents: {
        helper: {
          description: 'Reads and fetches',
          instructions: 'Help.',
          model: 'scripted:one',
          tools: ['fs_read', 'http_*'],
          metadata: { tier: 'basic' },
        },
        bare: { instructions: 'Nothing.', model: 'scripted:one' },
      },
    },
  });
  const url = await kernel.service('hubos').serve();
  return { url, cosmos: kernel.service('cosmos') };
}

const as = callAs;
const a = as(KEY_A);
const b = as(KEY_B);
const ops = as(KEY_OPS);
const local = as();

describe('Cosmos routes with API keys', () => {
  it('serves an agent a key created to that key (and admins) only: other keys find it nowhere', async () => {
    const { url } = await serve();
    expect(
      (await a(`${url}/api/cosmos/agents`, 'POST', { agentId: 'a-bot', templateId: 'bare' })).status,
    ).toBe(201);
    const names = async (caller: typeof a) =>
      (await caller(`${url}/api/agents`)).json.agents.map((agent: Json) => agent.name);
    expect(await names(a)).toContain('a-bot');
    expect(await names(ops)).toContain('a-bot');
    expect(await names(b)).not.toContain('a-bot');
    expect(await names(b)).toContain('helper');
    const run = (caller: typeof a) => caller(`${url}/api/agents/a-bot/run`, 'POST', { input: 'hi' });
    expect((await run(b)).status).toBe(404);
    expect((await run(b)).json.error.message).not.toContain('a-bot,');
    expect((await b(`${url}/api/agents/a-bot`)).status).toBe(404);
    expect((await run(a)).status).toBe(200);
    expect((await run(ops)).status).toBe(200);
    const agui = await b(`${url}/agui/a-bot`, 'POST', {
      threadId: 't',
      runId: 'r',
      messages: [{ id: 'm', role: 'user', content: 'hi' }],
    });
    expect(agui.status).toBe(404);
    const a2a = await b(`${url}/a2a/a-bot`, 'POST', {
      jsonrpc: '2.0',
      id: 1,
      method: 'GetTask',
      params: { id: 'x' },
    });
    expect(a2a.status).toBe(404);
    expect((await local(`${url}/a2a/a-bot/.well-known/agent-card.json`)).status).toBe(404);
    // Nor is it offered over MCP, where agents are served by pattern.
    const tools = async (key: string) => {
      const { client } = await connect(url, { headers: { authorization: `Bearer ${key}` } });
      try {
        return (await client.listTools()).tools.map((tool) => tool.name);
      } finally {
        await client.close();
      }
    };
    expect(await tools(KEY_A)).toContain('ask_a-bot');
    expect(await tools(KEY_B)).not.toContain('ask_a-bot');
    expect(await tools(KEY_B)).toContain('ask_helper');
    expect((await local(`${url}/a2a/helper/.well-known/agent-card.json`)).status).toBe(200);
  });

  it('refuses a key without admin tools beyond its template (403, naming them); it may narrow them', async () => {
    const { url, cosmos } = await serve();
    const create = (body: object) => b(`${url}/api/cosmos/agents`, 'POST', { templateId: 'helper', ...body });

    for (const [tools, beyond] of [
      [['*'], ['*']],
      [
        ['fs_read', 'fs_write', 'bash'],
        ['fs_write', 'bash'],
      ],
      [['http_*', 'f*'], ['f*']],
      [['fs_rea?'], ['fs_rea?']],
    ] as const) {
      const denied = await create({ agentId: 'b-bot', tools });
      expect(denied.status, JSON.stringify(tools)).toBe(403);
      expect(denied.json.error.code).toBe('COSMOS_OVERRIDE_DENIED');
      for (const tool of beyond) expect(denied.json.error.message).toContain(JSON.stringify(tool));
      expect(denied.json.error.message).toContain('fs_read, http_*');
    }
    expect(cosmos.has('b-bot')).toBe(false);
    const none = await b(`${url}/api/cosmos/agents`, 'POST', {
      agentId: 'x',
      templateId: 'bare',
      tools: ['bash'],
    });
    expect(none.status).toBe(403);
    expect(none.json.error.message).toContain('its tools: none');

    // Narrower: a listed name, a name under a glob, a narrower glob, the template's own glob, none.
    for (const [agentId, tools, selected] of [
      ['n-1', ['fs_read'], ['fs_read']],
      ['n-2', ['http_get'], ['http_get']],
      ['n-3', ['http_po*'], ['http_post']],
      ['n-4', ['http_*', 'fs_read'], ['fs_read', 'http_get', 'http_post']],
      ['n-5', [], []],
    ] as const) {
      const made = await create({ agentId, tools });
      expect(made.status, agentId).toBe(201);
      expect([...made.json.tools].sort()).toEqual(selected);
    }
    // Without `tools`, the template's.
    const whole = await create({ agentId: 'n-6' });
    expect(whole.status).toBe(201);
    expect([...whole.json.tools].sort()).toEqual(['fs_read', 'http_get', 'http_post']);
  });

  it('refuses a key without admin another model or changed template metadata; instructions may change', async () => {
    const { url } = await serve();
    const create = (body: object) => b(`${url}/api/cosmos/agents`, 'POST', { templateId: 'helper', ...body });
    const model = await create({ agentId: 'm-1', model: 'scripted:big' });
    expect(model.status).toBe(403);
    expect(model.json.error.code).toBe('COSMOS_OVERRIDE_DENIED');
    expect(model.json.error.message).toContain('model "scripted:big"');
    expect(model.json.error.message).toContain('"scripted:one"');
    // The template's own model is no override.
    expect((await create({ agentId: 'm-2', model: 'scripted:one' })).status).toBe(201);

    const changed = await create({ agentId: 'm-3', metadata: { tier: 'gold' } });
    expect(changed.status).toBe(403);
    expect(changed.json.error).toMatchObject({ code: 'COSMOS_OVERRIDE_DENIED' });
    expect(changed.json.error.message).toContain('metadata "tier"');
    expect(
      (await create({ agentId: 'm-4', metadata: { tier: 'basic', note: 'mine' }, instructions: 'Be brief.' }))
        .status,
    ).toBe(201);
    expect(kernel!.getAgent('m-4')!.spec).toMatchObject({
      instructions: 'Be brief.',
      metadata: { tier: 'basic', note: 'mine' },
    });
    // An unknown template is still 404, whatever the overrides.
    const unknown = await create({ agentId: 'm-5', templateId: 'ghost', tools: ['*'] });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('TEMPLATE_NOT_FOUND');
  });

  it('lets an admin key widen tools and choose the model', async () => {
    const { url } = await serve();
    const made = await ops(`${url}/api/cosmos/agents`, 'POST', {
      agentId: 'ops-bot',
      templateId: 'helper',
      tools: ['*'],
      model: 'scripted:big',
      metadata: { tier: 'gold' },
    });
    expect(made.status).toBe(201);
    expect([...made.json.tools].sort()).toEqual(['bash', 'fs_read', 'fs_write', 'http_get', 'http_post']);
    expect(made.json).toMatchObject({ owner: 'ops', model: 'scripted:big' });
  });

  it("keeps A's agents from B (404, never listed), and lets the admin see and delete them", async () => {
    const { url, cosmos } = await serve();
    const made = await a(`${url}/api/cosmos/agents`, 'POST', { agentId: 'a-bot', templateId: 'helper' });
    expect(made.status).toBe(201);
    expect(made.json.owner).toBe(A);
    expect(
      (await b(`${url}/api/cosmos/agents`, 'POST', { agentId: 'b-bot', templateId: 'helper' })).status,
    ).toBe(201);
    // A shared agent, created in code (as Stars does): every key lists and reads it.
    await cosmos.create({ agentId: 'shared', templateId: 'helper' });

    const ids = async (call: typeof a) =>
      (await call(`${url}/api/cosmos/agents`)).json.agents.map((agent: Json) => agent.id);
    expect(await ids(a)).toEqual(['a-bot', 'shared']);
    expect(await ids(b)).toEqual(['b-bot', 'shared']);
    expect(await ids(ops)).toEqual(['a-bot', 'b-bot', 'shared']);
    expect((await b(`${url}/api/cosmos/agents?filter=a-`)).json.agents).toEqual([]);

    // B: as if A's agent did not exist.
    const peek = await b(`${url}/api/cosmos/agents/a-bot`);
    expect(peek.status).toBe(404);
    expect(peek.json.error).toMatchObject({ code: 'AGENT_NOT_FOUND', message: 'no agent "a-bot" in cosmos' });
    const kill = await b(`${url}/api/cosmos/agents/a-bot`, 'DELETE');
    expect(kill.status).toBe(404);
    expect(kill.json.error.code).toBe('AGENT_NOT_FOUND');
    expect(cosmos.has('a-bot')).toBe(true);
    expect((await a(`${url}/api/cosmos/agents/a-bot`)).json).toMatchObject({ id: 'a-bot', owner: A });
    expect((await b(`${url}/api/cosmos/agents/shared`)).status).toBe(200);

    // A shared agent is deleted by admins only.
    const shared = await b(`${url}/api/cosmos/agents/shared`, 'DELETE');
    expect(shared.status).toBe(403);
    expect(shared.json.error.code).toBe('COSMOS_ADMIN_ONLY');
    expect(shared.json.error.message).toContain('admin: true');

    // The admin reads and deletes anyone's.
    expect((await ops(`${url}/api/cosmos/agents/b-bot`)).json).toMatchObject({ id: 'b-bot', owner: B });
    expect((await ops(`${url}/api/cosmos/agents/a-bot`, 'DELETE')).json).toEqual({ deleted: 'a-bot' });
    expect((await ops(`${url}/api/cosmos/agents/shared`, 'DELETE')).status).toBe(200);
    // Its owner deletes its own.
    expect((await b(`${url}/api/cosmos/agents/b-bot`, 'DELETE')).json).toEqual({ deleted: 'b-bot' });
    expect(cosmos.list()).toEqual([]);
  });

  it('answers /stats to admin keys only (403 COSMOS_ADMIN_ONLY)', async () => {
    const { url } = await serve();
    await a(`${url}/api/cosmos/agents`, 'POST', { agentId: 'a-bot', templateId: 'helper' });
    const denied = await b(`${url}/api/cosmos/stats`);
    expect(denied.status).toBe(403);
    expect(denied.json.error).toMatchObject({ code: 'COSMOS_ADMIN_ONLY' });
    expect(denied.json.error.message).toContain('admin API key');
    expect((await a(`${url}/api/cosmos/stats`)).status).toBe(403);
    const stats = await ops(`${url}/api/cosmos/stats`);
    expect(stats.status).toBe(200);
    expect(stats.json).toMatchObject({ count: 1, agents: [{ id: 'a-bot', owner: A }] });
  });

  it('keeps the owner of a persisted agent across a restart', async () => {
    const file = join(dir, 'owners.db');
    const first = await serve(true, file);
    expect(
      (await a(`${first.url}/api/cosmos/agents`, 'POST', { agentId: 'kept', templateId: 'helper' })).status,
    ).toBe(201);
    await first.cosmos.create({ agentId: 'common', templateId: 'helper' });
    await kernel!.close();
    const { url, cosmos } = await serve(true, file);
    expect(cosmos.info('kept')).toMatchObject({ owner: A });
    expect(cosmos.info('common')!.owner).toBeUndefined();
    expect((await b(`${url}/api/cosmos/agents/kept`)).status).toBe(404);
    expect((await a(`${url}/api/cosmos/agents/kept`)).status).toBe(200);
  });

  it('on a keyless server the local caller is the admin: everything works as before', async () => {
    const { url } = await serve(false);
    const made = await local(`${url}/api/cosmos/agents`, 'POST', {
      agentId: 'mine',
      templateId: 'helper',
      tools: ['*'],
      model: 'scripted:big',
    });
    expect(made.status).toBe(201);
    expect(made.json.owner).toBe('local');
    expect((await local(`${url}/api/cosmos/agents`)).json.agents.map((x: Json) => x.id)).toEqual(['mine']);
    expect((await local(`${url}/api/cosmos/stats`)).json.count).toBe(1);
    expect((await local(`${url}/api/cosmos/agents/mine`, 'DELETE')).status).toBe(200);
  });
});
