import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent, HubosConfig, Kernel, Plugin, ToolCallRecord } from '../../core/index.ts';
import { openai } from '../../plugins/models/index.ts';
import subagent from '../../plugins/subagent/index.ts';
import { bootKernel } from '../../testing/index.ts';
import { makeTool, toolsPlugin } from '../agent/helpers.ts';
import { fakeOpenAI } from './fake-openai.ts';
import { filler } from './note-model.ts';

/** The fake model's window: small, so a long conversation passes it many times over. */
const WINDOW = 3_000;

const kernels: Kernel[] = [];
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
const dir = mkdtempSync(join(tmpdir(), 'hubos-compaction-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function boot(url: string, db: string, agents: HubosConfig['agents'], plugins: Plugin[] = []) {
  const kernel = await bootKernel({
    store: undefined,
    config: {
      store: { driver: 'sqlite', path: join(dir, db) },
      openai: { baseURL: `${url}/v1`, apiKey: 'sk-test' },
      // Only the limits table knows this model's window; compaction is on by default for it.
      modelLimits: { 'fake-small': { contextWindow: WINDOW, maxOutput: 256 } },
      agents,
    },
    plugins: [openai(), ...plugins],
  });
  kernels.push(kernel);
  return kernel;
}

describe('compaction against a provider that refuses requests over its window', () => {
  it('carries a 1,000-turn session without a context-length error and recalls a fact from turn 3', async () => {
    const server = await fakeOpenAI(WINDOW, (body, text) => {
      const last = body.messages.at(-1).content as string;
      const asked = /what is ([a-z0-9_]+)\?/.exec(last)?.[1];
      if (!asked) return { text: 'noted' };
      return {
        text: `${asked} is ${new RegExp(`fact: ${asked} = ([a-z0-9]+)`).exec(text)?.[1] ?? 'unknown'}`,
      };
    });
    servers.push(server);
    const kernel = await boot(server.url, 'long.db', { chat: { model: 'openai:fake-small' } });
    const agent = kernel.agent('chat');
    const compactions: AgentEvent[] = [];
    const turns = 1_000;
    for (let turn = 1; turn <= turns; turn++) {
      const fact = turn === 3 ? 'fact: color = teal ' : '';
      const result = await agent.run(`turn ${turn}: ${fact}${filler(300, turn)}`, {
        sessionId: 'long',
        principal: 'alice',
        onEvent: (event) => {
          if (event.type === 'compaction') compactions.push(event);
        },
      });
      expect(result.status).toBe('completed');
    }
    const answer = await agent.run('what is color?', { sessionId: 'long', principal: 'alice' });
    expect(answer.text).toBe('color is teal');
    expect(server.stats.refused).toBe(0);
    expect(server.stats.largest).toBeLessThanOrEqual(WINDOW);
    // Summarized many times over, each summary reused for the turns after it.
    expect(compactions.length).toBeGreaterThan(10);
    expect(compactions.length).toBeLessThan(turns / 4);
    // The session store still has every message the conversation had.
    const kept = await kernel.sessions.load('chat', 'long');
    expect(kept).toHaveLength((turns + 1) * 2);
    expect(kept[4]!.content).toContain('fact: color = teal');
  }, 240_000);

  it("compacts a sub-agent's long task and still returns the task's answer", async () => {
    const lead = 'You are the lead.';
    const server = await fakeOpenAI(WINDOW, (body, text) => {
      const system = body.messages[0].content as string;
      const messages = body.messages as { role: string; content: string | null }[];
      if (system === lead) {
        const result = messages.find((message) => message.role === 'tool');
        if (!result)
          return {
            calls: [
              {
                id: 'call_task',
                name: 'task',
                args: {
                  description: 'TASK-42: read pages until done, then report the code word.',
                  subagent_type: 'general-purpose',
                },
              },
            ],
          };
        return { text: `lead heard: ${result.content}` };
      }
      // The sub-agent: its task must still be there, word for word.
      const task = /TASK-(\d+)/.exec(messages.find((message) => message.role === 'user')?.content ?? '')?.[1];
      const pages = [...text.matchAll(/fact: page(\d+) = read/g)].map((match) => Number(match[1]));
      const next = Math.max(0, ...pages) + 1;
      if (next <= 20) return { calls: [{ id: `call_${next}`, name: 'read_page', args: { page: next } }] };
      const code = /fact: code = ([a-z0-9]+)/.exec(text)?.[1] ?? 'lost';
      return { text: `task ${task ?? 'lost'}: the code word is ${code}` };
    });
    servers.push(server);
    const readPage = makeTool(
      'read_page',
      (_ctx, tc) => {
        const page = Number(tc.input.page);
        return `fact: page${page} = read ${page === 2 ? 'fact: code = swordfish ' : ''}${filler(900, page)}`;
      },
      { inputSchema: { type: 'object', properties: { page: { type: 'number' } } } },
    );
    const kernel = await boot(
      server.url,
      'task.db',
      { lead: { model: 'openai:fake-small', instructions: lead, tools: ['task', 'read_page'], maxSteps: 5 } },
      [subagent({ maxSteps: 40 }), toolsPlugin([readPage])],
    );
    const events: AgentEvent[] = [];
    const result = await kernel.agent('lead').run('Find the code word.', {
      onEvent: (event) => events.push(event),
    });
    expect(result.status).toBe('completed');
    const call = result.toolCalls.find((record: ToolCallRecord) => record.name === 'task')!;
    expect(call.ok).toBe(true);
    expect(JSON.stringify(call.output)).toContain('task 42: the code word is swordfish');
    expect(result.text).toContain('the code word is swordfish');
    expect(server.stats.refused).toBe(0);
    expect(server.stats.summaries).toBeGreaterThan(0);
  }, 60_000);
});
