import { afterEach, describe, expect, it } from 'vitest';
import { pruneSummaries, summaryKey } from '../../core/context/summary-store.ts';
import type { AgentEvent, Kernel, Message } from '../../core/index.ts';
import { HubosError, summaryTable } from '../../core/index.ts';
import { LoopSteps } from '../../core/runs/loop-steps.ts';
import { eraseOwner } from '../../plugins/hubos/erase-owner.ts';
import { bootKernel } from '../../testing/index.ts';
import { toolsPlugin } from '../agent/helpers.ts';
import { filler, NoteModel } from './note-model.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

const WINDOW = 2_000;

async function boot(
  model: NoteModel,
  extra: { tools?: string[]; plugins?: Parameters<typeof toolsPlugin>[0] } = {},
) {
  const kernel = await bootKernel({
    config: {
      agents: {
        assistant: {
          model,
          ...(extra.tools ? { tools: extra.tools } : {}),
          context: { compaction: { contextWindow: WINDOW, keepTurns: 2 } },
        },
      },
    },
    plugins: extra.plugins ? [toolsPlugin(extra.plugins)] : [],
  });
  kernels.push(kernel);
  return { kernel, agent: kernel.agent('assistant') };
}

describe('compaction', () => {
  it('summarizes older turns near the window, keeps facts, reuses the summary and keeps the full session', async () => {
    const model = new NoteModel(WINDOW);
    const { kernel, agent } = await boot(model);
    const events: AgentEvent[] = [];
    const turns = 60;
    for (let turn = 1; turn <= turns; turn++) {
      const fact = turn === 3 ? 'fact: color = teal ' : '';
      await agent.run(`${fact}${filler(400, turn)}`, {
        sessionId: 's1',
        principal: 'alice',
        onEvent: (event) => events.push(event),
      });
    }
    const answer = await agent.run('what is color?', { sessionId: 's1', principal: 'alice' });
    expect(answer.text).toBe('color is teal');
    const compactions = events.filter((event) => event.type === 'compaction');
    expect(compactions.length).toBeGreaterThan(0);
    for (const event of compactions) {
      expect(event).toMatchObject({ type: 'compaction', model: 'fake:notes' });
      expect(event.tokensAfter).toBeLessThan(event.tokensBefore);
      expect(event.tokensAfter).toBeLessThanOrEqual(WINDOW * 0.85);
    }
    // Each summary is reused until the conversation grows past the limit again: not every turn.
    expect(compactions.length).toBeLessThan(turns / 3);
    expect(model.largest).toBeLessThanOrEqual(WINDOW * 0.85);
    // The session keeps every message; the summary is kept beside it, for its owner.
    expect(await kernel.sessions.load('assistant', 's1')).toHaveLength((turns + 1) * 2);
    const stored = await summaryTable(kernel.store).get(summaryKey('assistant', 's1'));
    expect(stored).toMatchObject({ owner: 'alice', agent: 'assistant', sessionId: 's1' });
    expect(stored!.summary).toContain('fact: color = teal');
    // The stable prefix: the summary opens the request, the newest turn verbatim at its end.
    const last = model.requests.at(-1)!;
    expect(last.messages[0]!.content).toMatch(/^\[Summary of the earlier conversation/);
    expect(last.messages.at(-1)).toEqual({ role: 'user', content: 'what is color?' });
  });

  it("keeps a run's own input verbatim when its own long run is compacted", async () => {
    let calls = 0;
    const model = new NoteModel(WINDOW, () => {
      calls++;
      if (calls > 14) return undefined;
      return [
        { type: 'tool-call', id: `c${calls}`, name: 'look', input: { page: calls } },
        { type: 'finish', finishReason: 'tool-calls' },
      ];
    });
    const look = {
      name: 'look',
      description: 'Reads a page.',
      inputSchema: { type: 'object' as const, properties: { page: { type: 'number' as const } } },
      handler: (_: unknown, tc: { input: { page: number } }) =>
        `fact: page${tc.input.page} = seen ${filler(500, 1)}`,
    };
    const { agent } = await boot(model, { tools: ['look'], plugins: [look] });
    const task = `TASK: read every page, then say noted. ${filler(300, 7)}`;
    const events: AgentEvent[] = [];
    const result = await agent.run(task, { maxSteps: 30, onEvent: (event) => events.push(event) });
    expect(result.status).toBe('completed');
    expect(result.text).toBe('noted');
    expect(events.some((event) => event.type === 'compaction')).toBe(true);
    // Every request has the task, word for word, and never a tool result without its call.
    for (const request of model.requests) {
      expect(request.messages).toContainEqual({ role: 'user', content: task });
      request.messages.forEach((message, i) => {
        if (message.role !== 'tool') return;
        const before = request.messages
          .slice(0, i)
          .reverse()
          .find((m) => m.role !== 'tool') as Message;
        expect(before.role).toBe('assistant');
        expect((before as { toolCalls?: { id: string }[] }).toolCalls?.map((c) => c.id)).toContain(
          message.toolCallId,
        );
      });
    }
    // The summary kept what the tools returned.
    expect(model.summaries.at(-1)!.messages[0]!.content).toContain('fact: page1 = seen');
    // Each summary asked for is bounded: a fifth of the limit.
    for (const request of model.summaries) expect(request.maxTokens).toBe(Math.floor((WINDOW * 0.85) / 5));
  });

  it("never reads another principal's summary under the same session id", async () => {
    const model = new NoteModel(WINDOW);
    const { kernel, agent } = await boot(model);
    await summaryTable(kernel.store).put(summaryKey('assistant', 's2'), {
      agent: 'assistant',
      sessionId: 's2',
      owner: 'mallory',
      summary: 'fact: secret = mallorys',
      through: 1,
      anchor: 'nothing',
      model: 'fake:notes',
      updatedAt: Date.now(),
    });
    for (let turn = 1; turn <= 20; turn++)
      await agent.run(filler(400, turn), { sessionId: 's2', principal: 'alice' });
    const seen = [...model.requests, ...model.summaries].flatMap((request) =>
      request.messages.map((m) => m.content),
    );
    expect(seen.join('\n')).not.toContain('secret');
    // Alice's compaction wrote her own over it.
    expect(await summaryTable(kernel.store).get(summaryKey('assistant', 's2'))).toMatchObject({
      owner: 'alice',
    });
  });

  it('keeps no summary for sessions that are not kept', async () => {
    // The first run calls a tool until it has compacted its own steps; the second just answers.
    let calls = 0;
    const model = new NoteModel(WINDOW, (request) => {
      if (request.messages.some((message) => message.content.startsWith('second'))) return undefined;
      calls++;
      if (calls > 16) return undefined;
      return [
        { type: 'tool-call', id: `c${calls}`, name: 'look', input: { page: calls } },
        { type: 'finish', finishReason: 'tool-calls' },
      ];
    });
    const look = {
      name: 'look',
      description: 'Reads a page.',
      inputSchema: { type: 'object' as const, properties: { page: { type: 'number' as const } } },
      handler: (_: unknown, tc: { input: { page: number } }) =>
        `fact: page${tc.input.page} = seen ${filler(500, 1)}`,
    };
    const kernel = await bootKernel({
      config: {
        sessions: { persist: false },
        agents: {
          assistant: {
            model,
            tools: ['look'],
            context: { compaction: { contextWindow: WINDOW, keepTurns: 1 } },
          },
        },
      },
      plugins: [toolsPlugin([look])],
    });
    kernels.push(kernel);
    const agent = kernel.agent('assistant');
    const events: AgentEvent[] = [];
    await agent.run('first: read pages', {
      sessionId: 'gone',
      principal: 'alice',
      onEvent: (event) => events.push(event),
    });
    expect(events.some((event) => event.type === 'compaction')).toBe(true);
    expect(await summaryTable(kernel.store).get(summaryKey('assistant', 'gone'))).toBeUndefined();
    // The next run of that session starts from nothing: no summary of the run before.
    await agent.run('second: hello', { sessionId: 'gone', principal: 'alice' });
    expect(model.requests.at(-1)!.messages).toEqual([{ role: 'user', content: 'second: hello' }]);
  });

  it("erases a principal's summaries with the rest of its data", async () => {
    const model = new NoteModel(WINDOW);
    const { kernel, agent } = await boot(model);
    for (let turn = 1; turn <= 20; turn++)
      await agent.run(filler(400, turn), { sessionId: 's3', principal: 'alice' });
    expect(await summaryTable(kernel.store).get(summaryKey('assistant', 's3'))).toBeDefined();
    const erased = await eraseOwner(kernel.store, 'alice');
    expect(erased.contextSummaries).toBe(1);
    expect(await summaryTable(kernel.store).get(summaryKey('assistant', 's3'))).toBeUndefined();
  });

  it('prunes summaries not written for the sessions retention, and only those', async () => {
    const kernel = await bootKernel();
    kernels.push(kernel);
    const day = 86_400_000;
    const now = Date.now();
    const record = (sessionId: string, updatedAt: number) => ({
      agent: 'assistant',
      sessionId,
      owner: 'alice',
      summary: 'fact: x = 1',
      through: 2,
      anchor: 'a',
      model: 'fake:notes',
      updatedAt,
    });
    const table = summaryTable(kernel.store);
    await table.put(summaryKey('assistant', 'old'), record('old', now - 40 * day));
    await table.put(summaryKey('assistant', 'new'), record('new', now - day));
    expect(await pruneSummaries(kernel.store, 30, 500, now)).toBe(1);
    expect(await table.get(summaryKey('assistant', 'old'))).toBeUndefined();
    expect(await table.get(summaryKey('assistant', 'new'))).toBeDefined();
  });

  it('needs a known context window when compaction is asked for, and says how to give one', async () => {
    const error = await bootKernel({
      config: { agents: { a: { model: new NoteModel(WINDOW), context: { compaction: { keepTurns: 2 } } } } },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(HubosError.is(error) && error.code).toBe('AGENT_INVALID');
    expect((error as Error).message).toMatch(/context window of "fake:notes".*contextWindow.*modelLimits/);
  });

  it('fails an agent whose summarizing model no provider knows, at its creation', async () => {
    const kernel = await bootKernel();
    kernels.push(kernel);
    await expect(
      kernel.createAgent({
        name: 'c',
        model: new NoteModel(WINDOW),
        context: { compaction: { model: 'nowhere:model', contextWindow: WINDOW } },
      }),
    ).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND' });
    expect(kernel.listAgents().map((agent) => agent.id)).not.toContain('c');
  });

  it('rejects a bad threshold given in code with a clear error', async () => {
    const kernel = await bootKernel();
    kernels.push(kernel);
    await expect(
      kernel.createAgent({
        name: 'b',
        model: new NoteModel(WINDOW),
        context: { compaction: { threshold: 3, contextWindow: WINDOW } },
      }),
    ).rejects.toThrow(/context\.compaction\.threshold must be a number in \(0, 1\]/);
  });

  it('records a compaction as a step before the model call it made room for', () => {
    const loop = new LoopSteps('r1');
    loop.see({ type: 'run-start', runId: 'r1', agent: 'a', model: 'fake:notes' });
    loop.see({ type: 'step-start', runId: 'r1', step: 1 });
    loop.see({
      type: 'compaction',
      runId: 'r1',
      step: 1,
      tokensBefore: 1900,
      tokensAfter: 400,
      through: 12,
      model: 'fake:notes',
    });
    const steps = loop.see({
      type: 'step-finish',
      runId: 'r1',
      step: 1,
      finishReason: 'stop',
      usage: { inputTokens: 400, outputTokens: 2 },
    });
    expect(steps.map((step) => step.kind)).toEqual(['compaction', 'model']);
    expect(steps[0]).toMatchObject({
      name: 'fake:notes',
      detail: { tokensBefore: 1900, tokensAfter: 400, through: 12 },
      preview: { output: '12 messages summarized: 1900 → 400 tokens' },
    });
  });
});
