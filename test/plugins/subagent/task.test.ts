import { describe, expect, it } from 'vitest';
import type { AgentHandle } from '../../../core/index.ts';
import { DEFAULT_INSTRUCTIONS, getSubagentHooks as getHooks } from '../../../plugins/subagent/index.ts';
import { ScriptedModel } from '../../../testing/index.ts';
import { makeTool } from '../../agent/helpers.ts';
import { bootLead, task, toolMessages } from './helpers.ts';

const lookup = makeTool('lookup', (_ctx, tc) => ({ found: `facts about ${String(tc.input.topic)}` }), {
  inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
});

describe('the task tool: isolation', () => {
  it("gives the sub-agent only its instructions and the task, never the parent's history", async () => {
    const { agent, model } = await bootLead({
      tools: [lookup],
      script: [
        'Noted: the secret word is swordfish.', // lead, run 1
        { toolCalls: [task('Find out about otters. Report three facts.')] }, // lead, run 2
        'Otters hold hands while sleeping.', // the sub-agent
        'Done.', // lead
      ],
    });
    await agent.run('Remember: the secret word is swordfish.', { sessionId: 's1' });
    const result = await agent.run('Research otters.', { sessionId: 's1' });
    expect(result.text).toBe('Done.');

    const sub = model.requests[2]!;
    expect(sub.system).toBe(DEFAULT_INSTRUCTIONS);
    expect(sub.messages).toEqual([{ role: 'user', content: 'Find out about otters. Report three facts.' }]);
    expect(JSON.stringify(sub)).not.toMatch(/swordfish|You are the lead|Research otters/);
    // general-purpose: the lead's tools, without `task`; the lead's model.
    expect(sub.tools.map((tool) => tool.name)).toEqual(['lookup']);
    expect(model.requests[1]!.tools.map((tool) => tool.name)).toEqual(['task', 'lookup']);
    model.assertConsumed();
  });

  it('creates a fresh sub-agent per task and destroys it when the task is done', async () => {
    const created: string[] = [];
    const destroyed: string[] = [];
    const { kernel, agent } = await bootLead({
      script: [
        { toolCalls: [task('one')] },
        'answer one',
        { toolCalls: [task('two')] },
        'answer two',
        'Both done.',
      ],
      plugins: [
        {
          name: 'watch',
          apply(k) {
            k.hooks.agentCreated.tap('watch', ({ agent }: { agent: AgentHandle }) => {
              created.push(agent.id);
            });
            k.hooks.agentDestroy.tap('watch', ({ agent }: { agent: AgentHandle }) => {
              destroyed.push(agent.id);
            });
          },
        },
      ],
    });
    await agent.run('go');
    const subs = created.filter((id) => id !== 'lead');
    expect(subs).toHaveLength(2);
    expect(new Set(subs).size).toBe(2);
    expect(subs[0]).toMatch(/^lead\.general-purpose\.\d+$/);
    expect(destroyed).toEqual(subs);
    expect(kernel.listAgents().map((a) => a.id)).toEqual(['lead']);
  });
});

describe('the task tool: summary only', () => {
  it('returns { status, answer, usage } and none of the sub-agent’s steps', async () => {
    const { agent, model } = await bootLead({
      tools: [lookup],
      script: [
        { toolCalls: [task('Research otters.')], usage: { inputTokens: 10, outputTokens: 5 } },
        {
          toolCalls: [{ name: 'lookup', input: { topic: 'otters' } }],
          usage: { inputTokens: 100, outputTokens: 20 },
        },
        { text: 'Otters use tools.', usage: { inputTokens: 150, outputTokens: 30 } },
        { text: 'Summary given.', usage: { inputTokens: 40, outputTokens: 8 } },
      ],
    });
    const result = await agent.run('Tell me about otters.');
    expect(result.toolCalls).toHaveLength(1);
    const [call] = result.toolCalls;
    expect(call).toMatchObject({ name: 'task', ok: true });
    expect(call!.output).toEqual({
      status: 'completed',
      answer: 'Otters use tools.',
      usage: { inputTokens: 250, outputTokens: 50 },
    });
    // What the lead's model reads back: that summary, nothing of `lookup`.
    const back = toolMessages(model.requests[3]!.messages);
    expect(back).toHaveLength(1);
    expect(JSON.parse(back[0]!.content)).toEqual(call!.output);
    expect(JSON.stringify(result.messages)).not.toContain('lookup');
  });

  it("adds the sub-agent's usage to the parent run's usage", async () => {
    const { agent } = await bootLead({
      script: [
        { toolCalls: [task('a')], usage: { inputTokens: 10, outputTokens: 1 } },
        { text: 'sub answer', usage: { inputTokens: 1000, outputTokens: 300 } },
        { text: 'done', usage: { inputTokens: 20, outputTokens: 2 } },
      ],
    });
    const events: { type: string; usage?: unknown }[] = [];
    for await (const event of agent.stream('go')) events.push(event);
    const finish = events.at(-1) as { type: 'run-finish'; result: { usage: unknown } };
    expect(finish.type).toBe('run-finish');
    expect(finish.result.usage).toEqual({ inputTokens: 1030, outputTokens: 303 });
    // Step events keep the lead's own model usage.
    expect(events.filter((e) => e.type === 'step-finish').map((e) => e.usage)).toEqual([
      { inputTokens: 10, outputTokens: 1 },
      { inputTokens: 20, outputTokens: 2 },
    ]);
  });

  it('cuts a long answer at maxAnswerChars, with a marker', async () => {
    const long = 'x'.repeat(300);
    const { agent } = await bootLead({
      options: { maxAnswerChars: 100 },
      script: [{ toolCalls: [task('write a lot')] }, long, 'ok'],
    });
    const result = await agent.run('go');
    const { answer } = result.toolCalls[0]!.output as { answer: string };
    expect(answer.startsWith('x'.repeat(100))).toBe(true);
    expect(answer).not.toContain('x'.repeat(101));
    expect(answer).toMatch(/\[answer cut: 100 of 300 characters shown\]$/);
  });

  it('reports a sub-agent that ends without an answer as a failure, not an empty success', async () => {
    const { agent } = await bootLead({ script: [{ toolCalls: [task('say nothing')] }, '', 'ok'] });
    const result = await agent.run('go');
    expect(result.toolCalls[0]).toMatchObject({ ok: false, error: { code: 'TOOL_FAILED' } });
    expect(result.toolCalls[0]!.error!.message).toMatch(
      /sub-agent "general-purpose" finished .* without an answer/,
    );
  });
});

describe('the task tool: types', () => {
  it('lists the types as an enum and says what each is for and when delegating pays', async () => {
    const { kernel } = await bootLead({
      config: {
        subagents: {
          researcher: {
            description: 'Searches the notes and reports facts with sources.',
            tools: ['lookup'],
          },
        },
      },
      tools: [lookup],
      plugins: [
        {
          name: 'reviewers',
          apply(k) {
            getHooks(k).registerTypes.tap('reviewers', (types) => {
              types.register('reviewer', { description: 'Reviews a change for bugs.' });
            });
          },
        },
      ],
    });
    const tool = kernel.registry.get('task');
    expect(tool.inputSchema).toMatchObject({
      required: ['description', 'subagent_type'],
      properties: { subagent_type: { enum: ['general-purpose', 'reviewer', 'researcher'] } },
    });
    expect(tool.description).toContain('- researcher: Searches the notes and reports facts with sources.');
    expect(tool.description).toContain('- reviewer: Reviews a change for bugs.');
    expect(tool.description).toMatch(/- general-purpose: .*your own tools/);
    expect(tool.description).toMatch(/Worth it for: independent subtasks/);
    expect(tool.description).toMatch(/Not worth it for:/);
    expect(tool.description).toMatch(/empty context/);
  });

  it('answers an unknown type with an error naming the valid ones', async () => {
    const { agent, model } = await bootLead({
      config: { subagents: { researcher: { description: 'Researches.' } } },
      script: [{ toolCalls: [task('x', 'wizard')] }, 'ok'],
    });
    const result = await agent.run('go');
    expect(result.toolCalls[0]).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
    const message = toolMessages(model.requests[1]!.messages)[0]!.content;
    expect(message).toContain('"general-purpose", "researcher"');
    expect(message).toContain('"wizard"');
    expect(model.requests).toHaveLength(2); // no sub-agent ran
  });

  it('refuses a blank description before any sub-agent starts', async () => {
    const { agent, kernel } = await bootLead({ script: [{ toolCalls: [task('   ')] }, 'ok'] });
    const result = await agent.run('go');
    expect(result.toolCalls[0]).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
    expect(result.toolCalls[0]!.error!.message).toContain('"description"');
    expect(kernel.listAgents()).toHaveLength(1);
  });

  it('runs a configured type with its own instructions, tools, model and step limit', async () => {
    const researcherModel = new ScriptedModel([
      { toolCalls: [{ name: 'lookup', input: { topic: 'otters' } }] },
      'Otters: facts about otters.',
    ]);
    const { agent } = await bootLead({
      tools: [lookup, makeTool('other')],
      config: {
        subagents: {
          researcher: {
            description: 'Researches.',
            instructions: 'You research.',
            tools: ['lookup'],
            model: researcherModel,
            maxSteps: 3,
          },
        },
      },
      script: [{ toolCalls: [task('otters', 'researcher')] }, 'ok'],
    });
    const result = await agent.run('go');
    expect(result.toolCalls[0]!.output).toMatchObject({ answer: 'Otters: facts about otters.' });
    expect(researcherModel.requests[0]!.system).toBe('You research.');
    expect(researcherModel.requests[0]!.tools.map((t) => t.name)).toEqual(['lookup']);
    researcherModel.assertConsumed();
  });

  it('fails a task whose sub-agent runs out of steps', async () => {
    const looping = new ScriptedModel([
      { toolCalls: [{ name: 'lookup', input: { topic: 'a' } }] },
      { text: 'still looking', toolCalls: [{ name: 'lookup', input: { topic: 'b' } }] },
    ]);
    const { agent } = await bootLead({
      tools: [lookup],
      config: {
        subagents: { digger: { description: 'Digs.', tools: ['lookup'], model: looping, maxSteps: 2 } },
      },
      script: [{ toolCalls: [task('dig', 'digger')] }, 'ok'],
    });
    const result = await agent.run('go');
    expect(result.toolCalls[0]).toMatchObject({ ok: false });
    expect(result.toolCalls[0]!.error!.message).toMatch(
      /sub-agent "digger" used all 2 of its steps without finishing; its last text: still looking/,
    );
  });

  it("keeps the caller's own permission rules for its sub-agents", async () => {
    const { agent, model } = await bootLead({
      tools: [lookup],
      template: { permissions: { deny: ['lookup'] } },
      script: [
        { toolCalls: [task('look it up')] },
        { toolCalls: [{ name: 'lookup', input: { topic: 'x' } }] },
        (request) => toolMessages(request.messages)[0]!.content,
        'ok',
      ],
    });
    const result = await agent.run('go');
    expect((result.toolCalls[0]!.output as { answer: string }).answer).toMatch(/permission denied/);
    model.assertConsumed();
  });
});

describe('the task tool: nesting depth', () => {
  it('by default, sub-agents cannot delegate: they never see `task`', async () => {
    const { agent, model } = await bootLead({
      config: { subagents: { anything: { description: 'Has every tool.', tools: ['*'] } } },
      script: [
        { toolCalls: [task('nest', 'anything')] },
        { toolCalls: [task('deeper')] }, // the sub-agent tries anyway
        (request) => `got: ${toolMessages(request.messages)[0]!.content}`,
        'ok',
      ],
    });
    const result = await agent.run('go');
    expect(model.requests[1]!.tools.map((t) => t.name)).not.toContain('task');
    const { answer } = result.toolCalls[0]!.output as { answer: string };
    expect(answer).toMatch(/got: Error: no tool named "task" is available/);
    model.assertConsumed();
  });

  it('with maxDepth 2, a sub-agent delegates once more, and usage rolls all the way up', async () => {
    const { agent, model } = await bootLead({
      options: { maxDepth: 2 },
      script: [
        { toolCalls: [task('level 1')], usage: { inputTokens: 1, outputTokens: 1 } }, // lead
        { toolCalls: [task('level 2')], usage: { inputTokens: 10, outputTokens: 10 } }, // depth 1
        { text: 'deep answer', usage: { inputTokens: 100, outputTokens: 100 } }, // depth 2
        { text: 'relayed: deep answer', usage: { inputTokens: 1000, outputTokens: 1000 } }, // depth 1
        { text: 'done', usage: { inputTokens: 10000, outputTokens: 10000 } }, // lead
      ],
    });
    const result = await agent.run('go');
    expect(model.requests.map((r) => r.tools.some((t) => t.name === 'task'))).toEqual([
      true,
      true,
      false,
      true,
      true,
    ]);
    expect(result.toolCalls[0]!.output).toEqual({
      status: 'completed',
      answer: 'relayed: deep answer',
      usage: { inputTokens: 1110, outputTokens: 1110 },
    });
    expect(result.usage).toEqual({ inputTokens: 11111, outputTokens: 11111 });
  });
});
