import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type AgentEvent, executeTool, type Kernel } from '../../../core/index.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { ScriptedModel } from '../../../testing/index.ts';
import { callAs } from '../../helpers/keys.ts';
import { bootMcp } from './client-helpers.ts';
import { answer, requestsServers } from './requests-servers.ts';

const { httpServer, stdioServer } = requestsServers();

function directEnv(kernel: Kernel) {
  return { signal: new AbortController().signal, agentId: 'a', sandbox: kernel.sandbox, store: kernel.store };
}

describe("mcp client: a server's questions go to the run's human", () => {
  it('asks through the approval flow; the answer gets the schema defaults (kernel.approvals.decide)', async () => {
    const kernel = await bootMcp({ servers: { s: await httpServer() } });
    const model = new ScriptedModel([{ toolCalls: [{ name: 's_ask' }] }, 'done']);
    const agent = await kernel.createAgent({ name: 'dev', model, tools: ['s_ask'] });
    const questions: AgentEvent[] = [];
    const result = await agent.run('go', {
      onEvent: (event) => {
        if (event.type !== 'approval-request') return;
        questions.push(event);
        void kernel.approvals.decide(event.runId, event.callId, { approved: true, content: { age: 42 } });
      },
    });
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatchObject({
      tool: 's_ask',
      question: {
        message: 'Who are you?',
        schema: {
          type: 'object',
          properties: { name: { type: 'string', default: 'Ann' } },
          required: ['age'],
        },
      },
    });
    expect(answer(result.toolCalls[0]!.output)).toEqual({
      action: 'accept',
      content: { name: 'Ann', age: 42 },
    });
  });

  it('a human denying the question over REST declines it, with their reason', async () => {
    const kernel = await bootMcp({ servers: { s: stdioServer() } });
    const model = new ScriptedModel([{ toolCalls: [{ name: 's_ask', id: 'c1' }] }, 'done']);
    const hubos = new HubOS({ kernel, name: 'test', port: 0, rateLimit: false, shutdownTimeoutMs: 50 });
    hubos.registerAgent('dev', await kernel.createAgent({ name: 'dev', model, tools: ['s_ask'] }));
    const url = await hubos.serve();
    try {
      const as = callAs();
      const { runId } = (await as(`${url}/api/agents/dev/run?async=true`, 'POST', { input: 'go' })).json;
      let asked: { callId: string; question?: unknown } | undefined;
      while (!asked) {
        asked = (await as(`${url}/api/runs/${runId}/approvals`)).json.approvals?.[0];
        if (!asked) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(asked).toMatchObject({ callId: 'c1.ask-1', question: { message: 'Who are you?' } });
      const decided = await as(`${url}/api/runs/${runId}/approvals/c1.ask-1`, 'POST', {
        approved: false,
        reason: 'not telling',
      });
      expect(decided.status).toBe(200);
      const record = await hubos.runs.wait(runId);
      expect(answer(record!.result!.toolCalls[0]!.output)).toEqual({
        action: 'decline',
        _meta: { 'hubos/reason': 'not telling' },
      });
    } finally {
      await hubos.close();
    }
  });

  it('declines, saying why, where no human can be asked; offers no elicitation when turned off', async () => {
    const kernel = await bootMcp({
      servers: { on: await httpServer(), off: stdioServer({ elicitation: false }) },
    });
    const direct = await executeTool(kernel.registry, 'on_ask', {}, directEnv(kernel));
    expect(answer(direct.ok && direct.output)).toMatchObject({
      action: 'decline',
      _meta: { 'hubos/reason': expect.stringMatching(/no human can be asked here/) },
    });
    const caps = await executeTool(kernel.registry, 'off_client_capabilities', {}, directEnv(kernel));
    expect(answer(caps.ok && caps.output)).not.toHaveProperty('elicitation');
    const off = await executeTool(kernel.registry, 'off_ask', {}, directEnv(kernel));
    expect(answer(off.ok && off.output).error).toMatch(/Method not found|does not support .*elicitation/i);
  });
});

describe('mcp client: roots and declared capabilities', () => {
  it('declares roots, sampling and form elicitation, and lists the workspace as the one root', async () => {
    const kernel = await bootMcp({ servers: { s: stdioServer() } });
    const caps = await executeTool(kernel.registry, 's_client_capabilities', {}, directEnv(kernel));
    expect(answer(caps.ok && caps.output)).toEqual({
      roots: { listChanged: false },
      sampling: {},
      elicitation: { form: {} },
    });
    const roots = await executeTool(kernel.registry, 's_roots', {}, directEnv(kernel));
    expect(answer(roots.ok && roots.output)).toEqual({
      roots: [{ uri: pathToFileURL(kernel.sandbox.root).href, name: 'workspace' }],
    });
  });
});
