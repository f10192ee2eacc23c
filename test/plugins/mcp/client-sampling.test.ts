import { describe, expect, it } from 'vitest';
import { executeTool, type Kernel } from '../../../core/index.ts';
import { ScriptedModel } from '../../../testing/index.ts';
import { bootMcp } from './client-helpers.ts';
import { answer, requestsServers } from './requests-servers.ts';

const { httpServer, stdioServer } = requestsServers();

async function runWith(kernel: Kernel, name: string, model: ScriptedModel, tools: string[]) {
  const agent = await kernel.createAgent({ name, model, tools });
  return agent.run('go');
}

describe('mcp client: sampling requests answered by the calling run', () => {
  for (const transport of ['http', 'stdio'] as const) {
    it(`answers with the run's model, its tokens in the run's usage, maxTokens capped (${transport})`, async () => {
      const config = transport === 'http' ? await httpServer() : stdioServer();
      const kernel = await bootMcp({ servers: { s: { ...config, sampling: { maxTokens: 300 } } } });
      const model = new ScriptedModel([
        { toolCalls: [{ name: 's_summarize', input: { text: 'a long story' } }] },
        { text: 'A story.', usage: { inputTokens: 40, outputTokens: 7 } },
        'done',
      ]);
      const result = await runWith(kernel, 'dev', model, ['s_summarize']);
      expect(result.toolCalls[0]).toMatchObject({ ok: true });
      expect(answer(result.toolCalls[0]!.output)).toEqual({
        role: 'assistant',
        content: { type: 'text', text: 'A story.' },
        model: 'scripted:scripted',
        stopReason: 'endTurn',
      });
      const sampling = model.requests[1]!;
      expect(sampling).toMatchObject({
        system: 'You summarize.',
        messages: [{ role: 'user', content: 'Summarize: a long story' }],
        tools: [],
        maxTokens: 300,
        temperature: 0.2,
      });
      expect(result.usage.inputTokens).toBeGreaterThanOrEqual(40);
      expect(result.usage.outputTokens).toBeGreaterThanOrEqual(7);
    });
  }

  it('refuses requests beyond the budget of one tool call, saying which setting', async () => {
    const kernel = await bootMcp({
      servers: { s: { ...(await httpServer()), sampling: { maxRequests: 2 } } },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 's_sample_many', input: { count: 3 } }] },
      'one',
      'two',
      { toolCalls: [{ name: 's_sample_many', input: { count: 1 } }] },
      'three',
      'done',
    ]);
    const result = await runWith(kernel, 'dev', model, ['s_sample_many']);
    const first = JSON.parse(result.toolCalls[0]!.output as string) as Record<string, unknown>[];
    expect(first.slice(0, 2).map((r) => (r.content as { text: string }).text)).toEqual(['one', 'two']);
    expect(first[2]!.error).toMatch(
      /sampling refused: the tool call "sample_many" already made 2 sampling request\(s\).*mcp\.servers\.s\.sampling\.maxRequests/,
    );
    // The budget is per call: the next call samples again.
    const second = JSON.parse(result.toolCalls[1]!.output as string) as Record<string, unknown>[];
    expect((second[0]!.content as { text: string }).text).toBe('three');
  });

  it('refuses a request with no call in flight, and any request when sampling is off', async () => {
    const kernel = await bootMcp({
      servers: { on: stdioServer(), off: stdioServer({ sampling: false }) },
    });
    const env = {
      signal: new AbortController().signal,
      agentId: 'a',
      sandbox: kernel.sandbox,
      store: kernel.store,
    };
    const startup = await executeTool(kernel.registry, 'on_startup_sampling', {}, env);
    expect(answer(startup.ok && startup.output).error).toMatch(
      /sampling refused: no HubOS tool call is in flight on this connection/,
    );
    const caps = await executeTool(kernel.registry, 'off_client_capabilities', {}, env);
    expect(answer(caps.ok && caps.output)).not.toHaveProperty('sampling');
    const off = await executeTool(kernel.registry, 'off_summarize', { text: 'x' }, env);
    expect(answer(off.ok && off.output).error).toMatch(/does not support sampling|Method not found/i);
  });

  it('outside a run (no model offered) answers that no model can be asked', async () => {
    const kernel = await bootMcp({ servers: { s: await httpServer() } });
    const env = {
      signal: new AbortController().signal,
      agentId: 'a',
      sandbox: kernel.sandbox,
      store: kernel.store,
    };
    const result = await executeTool(kernel.registry, 's_summarize', { text: 'x' }, env);
    expect(answer(result.ok && result.output).error).toMatch(/sampling refused: no model is offered here/);
  });

  it('over HTTP, ties each request to its own call: two runs at once, each answered by its own model', async () => {
    const kernel = await bootMcp({ servers: { s: await httpServer() } });
    const script = (tag: string) =>
      new ScriptedModel([{ toolCalls: [{ name: 's_pair', input: { tag } }] }, `from ${tag}`, 'done']);
    const [a, b] = await Promise.all([
      runWith(kernel, 'a', script('a'), ['s_pair']),
      runWith(kernel, 'b', script('b'), ['s_pair']),
    ]);
    expect((answer(a.toolCalls[0]!.output).content as { text: string }).text).toBe('from a');
    expect((answer(b.toolCalls[0]!.output).content as { text: string }).text).toBe('from b');
  });

  it('over stdio, refuses when two calls are in flight: it cannot tell whose run should answer', async () => {
    const kernel = await bootMcp({ servers: { s: stdioServer() } });
    const script = (tag: string) =>
      new ScriptedModel([{ toolCalls: [{ name: 's_pair', input: { tag } }] }, 'done']);
    const runs = await Promise.all([
      runWith(kernel, 'a', script('a'), ['s_pair']),
      runWith(kernel, 'b', script('b'), ['s_pair']),
    ]);
    for (const run of runs)
      expect(answer(run.toolCalls[0]!.output).error).toMatch(
        /2 tool calls are in flight on this connection .*cannot tell whose run should answer/,
      );
  });
});
