import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CallSurface,
  defineTool,
  type Kernel,
  keyPrincipal,
  type Plugin,
  type ToolResult,
} from '../../core/index.ts';
import cosmos from '../../plugins/cosmos/index.ts';
import hubos from '../../plugins/hubos/index.ts';
import mcp from '../../plugins/mcp/index.ts';
import stars from '../../plugins/stars/index.ts';
import subagent from '../../plugins/subagent/index.ts';
import workflows, { defineWorkflow } from '../../plugins/workflows/index.ts';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

const KEY = 'pipeline-key-0123456789abcdef';
const KEY_PRINCIPAL = keyPrincipal(KEY).id;

/** What the audit plugin saw of one call. */
interface Audited {
  tool: string;
  principal: string | undefined;
  runId: string;
  via: CallSurface;
  ok: boolean;
  code?: string;
}

/** A guard, as the docs teach it: one tap on the kernel's beforeToolCall refuses `secret` everywhere. */
const guard: Plugin = {
  name: 'guard',
  apply(kernel) {
    kernel.hooks.beforeToolCall.tap('guard', ({ call }) =>
      call.name === 'secret' ? { deny: 'secret is off limits here' } : undefined,
    );
  },
};

/** An audit, as the docs teach it: one tap on the kernel's afterToolCall hears every call. */
function audit(seen: Audited[]): Plugin {
  return {
    name: 'audit',
    apply(kernel) {
      kernel.hooks.afterToolCall.tap('audit', ({ call, principal, runId, via, result }) => {
        seen.push({
          tool: call.name,
          principal,
          runId,
          via,
          ok: result.ok,
          ...(result.ok ? {} : { code: result.error.code }),
        });
      });
    },
  };
}

const ran: string[] = [];
const tools: Plugin = {
  name: 'pipeline-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('pipeline-tools', (registry) =>
      registry.registerBatch([
        defineTool({
          name: 'lookup',
          description: 'Looks a topic up.',
          idempotent: true,
          inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
          handler: (_ctx, { input }) => {
            ran.push('lookup');
            return `facts about ${String(input.topic)}`;
          },
        }),
        defineTool({
          name: 'secret',
          description: 'Must never run.',
          inputSchema: { type: 'object', properties: {} },
          handler: () => {
            ran.push('secret');
            return 'leaked';
          },
        }),
      ]),
    );
  },
};

const both = (topic: string) => ({
  toolCalls: [
    { name: 'lookup', input: { topic } },
    { name: 'secret', input: {} },
  ],
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  ran.length = 0;
});

async function boot() {
  const seen: Audited[] = [];
  const workspace = await mkdtemp(join(tmpdir(), 'hubos-pipeline-'));
  const models = {
    assistant: new ScriptedModel([both('rest'), 'done']),
    lead: new ScriptedModel([both('stars'), 'the team is done']),
    // The sub-agent shares its caller's model: its turns are in the same script.
    delegator: new ScriptedModel([
      {
        toolCalls: [
          { name: 'task', input: { description: 'Look it up.', subagent_type: 'general-purpose' } },
        ],
      },
      both('subagent'),
      'found it',
      'delegated',
    ]),
  };
  const kernel: Kernel = await bootKernel({
    plugins: [
      tools,
      guard,
      audit(seen),
      cosmos(),
      subagent(),
      stars({ crew: { members: [{ agent: 'lead', role: 'leader' }] } }),
      workflows([
        defineWorkflow({
          name: 'probe',
          steps: [{ id: 'look', kind: 'tool', tool: 'lookup', input: { topic: 'workflow' } }],
        }),
        defineWorkflow({ name: 'leak', steps: [{ id: 'take', kind: 'tool', tool: 'secret', input: {} }] }),
      ]),
      mcp(),
      hubos({ port: 0, rateLimit: false, apiKeys: [KEY] }),
    ],
    config: {
      workspace,
      agents: {
        assistant: { model: models.assistant, tools: ['lookup', 'secret'] },
        lead: { description: 'Leads.', model: models.lead, tools: ['lookup', 'secret'] },
        delegator: { model: models.delegator, tools: ['task', 'lookup', 'secret'] },
      },
      mcp: { serve: { tools: ['lookup', 'secret'] } },
    },
  });
  cleanups.push(async () => {
    await kernel.close();
    await rm(workspace, { recursive: true, force: true });
  });
  const url = await kernel.service('hubos').serve();
  return { kernel, url, seen };
}

/** The audited calls of one surface, by tool name: a model turn's calls run concurrently. */
const from = (seen: Audited[], via: CallSurface) =>
  seen.filter((entry) => entry.via === via).sort((a, b) => a.tool.localeCompare(b.tool));

const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

describe('one tool-call pipeline: a guard and an audit plugin on the kernel hooks', () => {
  it('see a REST run, an MCP tools/call, a workflow tool step, a Stars member and a sub-agent alike', async () => {
    const { kernel, url, seen } = await boot();

    // REST: a run of the server, for the API key's principal.
    const response = await fetch(`${url}/api/agents/assistant/run`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ input: 'go' }),
    });
    expect(response.status).toBe(200);
    const rest: Json = await response.json();
    expect(rest.toolCalls.map((call: Json) => [call.name, call.ok])).toEqual([
      ['lookup', true],
      ['secret', false],
    ]);
    expect(rest.toolCalls[1].error).toEqual({
      code: 'TOOL_DENIED',
      message: 'the call to "secret" was denied: secret is off limits here',
    });
    expect(from(seen, 'rest')).toEqual([
      { tool: 'lookup', principal: KEY_PRINCIPAL, runId: rest.runId, via: 'rest', ok: true },
      {
        tool: 'secret',
        principal: KEY_PRINCIPAL,
        runId: rest.runId,
        via: 'rest',
        ok: false,
        code: 'TOOL_DENIED',
      },
    ]);

    // MCP: the official SDK client, over the server's Streamable HTTP endpoint, with the same key.
    const client = new Client({ name: 'pipeline-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${KEY}` } },
      }),
    );
    cleanups.push(() => client.close());
    const looked = await client.callTool({ name: 'lookup', arguments: { topic: 'mcp' } });
    expect(looked.isError).toBeFalsy();
    const refused = await client.callTool({ name: 'secret', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('secret is off limits here');
    const mcpCalls = from(seen, 'mcp');
    expect(mcpCalls.map(({ tool, principal, ok }) => [tool, principal, ok])).toEqual([
      ['lookup', KEY_PRINCIPAL, true],
      ['secret', KEY_PRINCIPAL, false],
    ]);
    // Each tools/call is a run of its own.
    expect(new Set(mcpCalls.map((entry) => entry.runId)).size).toBe(2);

    // A workflow's tool step, for the workflow run's owner.
    const flows = kernel.service('workflows');
    const probe = await flows.get('probe')!.run({}, { principal: 'flow-owner' });
    expect(probe.status).toBe('completed');
    const leak = await flows.get('leak')!.run({}, { principal: 'flow-owner' });
    expect(leak.status).toBe('failed');
    expect(leak.error?.message).toContain('secret is off limits here');
    expect(from(seen, 'workflow')).toEqual([
      { tool: 'lookup', principal: 'flow-owner', runId: probe.runId, via: 'workflow', ok: true },
      {
        tool: 'secret',
        principal: 'flow-owner',
        runId: leak.runId,
        via: 'workflow',
        ok: false,
        code: 'TOOL_DENIED',
      },
    ]);

    // A Stars member's calls, in a team run started over REST.
    const team = await fetch(`${url}/api/stars/crew/run`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ task: 'Find out.' }),
    });
    expect(team.status).toBe(200);
    expect(((await team.json()) as Json).text).toBe('the team is done');
    expect(from(seen, 'stars').map(({ tool, principal, ok }) => [tool, principal, ok])).toEqual([
      ['lookup', KEY_PRINCIPAL, true],
      ['secret', KEY_PRINCIPAL, false],
    ]);

    // A sub-agent's calls: its own run, for the calling run's principal.
    const delegated = await kernel.agent('delegator').run('go', { principal: 'caller' });
    expect(delegated.text).toBe('delegated');
    const subCalls = from(seen, 'subagent');
    expect(subCalls.map(({ tool, principal, ok }) => [tool, principal, ok])).toEqual([
      ['lookup', 'caller', true],
      ['secret', 'caller', false],
    ]);
    expect(subCalls[0]!.runId).not.toBe(delegated.runId);
    // The `task` call itself is the calling run's, made by code that named no surface.
    expect(seen.filter((entry) => entry.tool === 'task')).toEqual([
      { tool: 'task', principal: 'caller', runId: delegated.runId, via: 'direct', ok: true },
    ]);

    // The guard held everywhere: the handler of `secret` never ran; `lookup` ran once per surface.
    expect(ran).toEqual(['lookup', 'lookup', 'lookup', 'lookup', 'lookup']);
  });

  it('runs a call from code through the same pipeline (kernel.tools.call), `direct` when it names no surface', async () => {
    const { kernel, seen } = await boot();
    const signal = new AbortController().signal;
    const run = { runId: 'code-run', agent: 'script', sessionId: undefined, input: '', signal };
    const looked: ToolResult = await kernel.tools.call({
      call: { id: 'c1', name: 'lookup', input: { topic: 'code' } },
      run,
    });
    expect(looked).toEqual({ ok: true, output: 'facts about code' });
    const refused = await kernel.tools.call({ call: { id: 'c2', name: 'secret', input: {} }, run });
    expect(refused).toMatchObject({ ok: false, error: { code: 'TOOL_DENIED' } });
    const missing = await kernel.tools.call({ call: { id: 'c3', name: 'lookups', input: {} }, run });
    expect(missing).toMatchObject({ ok: false, error: { code: 'TOOL_NOT_FOUND' } });
    if (!missing.ok) expect(missing.error.message).toContain('did you mean "lookup"');
    // A malformed request is told what is wrong, and never reaches the hooks.
    const noRun = await kernel.tools.call({ call: { id: 'c4', name: 'lookup', input: {} } } as never);
    expect(noRun).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
    if (!noRun.ok) expect(noRun.error.message).toContain('`run` needs a non-empty `runId`');
    const badVia = await kernel.tools.call({
      call: { id: 'c5', name: 'lookup', input: {} },
      run: { ...run, via: 'fax' as never },
    });
    if (badVia.ok) throw new Error('a via outside CallSurface ran');
    expect(badVia.error.message).toContain('`run.via` must be one of rest, a2a');
    await expect(kernel.agent('assistant').run('go', { via: 'fax' as never })).rejects.toMatchObject({
      code: 'AGENT_INVALID',
      message: expect.stringContaining('via must be one of'),
    });
    expect(seen.map(({ tool, via, runId, ok }) => [tool, via, runId, ok])).toEqual([
      ['lookup', 'direct', 'code-run', true],
      ['secret', 'direct', 'code-run', false],
      ['lookups', 'direct', 'code-run', false],
    ]);
  });
});
