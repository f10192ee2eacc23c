import { describe, expect, it } from 'vitest';
import { type AgentEvent, defineTool, type ElicitResult, type SampleResult } from '../../../core/index.ts';
import { bootLead, task } from './helpers.ts';

const QUESTION = {
  message: 'Which size?',
  schema: { type: 'object', properties: { size: { type: 'string', default: 'M' } } },
} as const;

/** `order` asks QUESTION, then samples a model; the sub-agents call it. */
function orderTool() {
  const seen: { answer?: ElicitResult; sampled?: SampleResult } = {};
  const tool = defineTool({
    name: 'order',
    description: 'Orders a shirt, asking the size.',
    inputSchema: { type: 'object', properties: {} },
    handler: async (_ctx, tc) => {
      seen.answer = await tc.elicit(QUESTION);
      if (seen.answer.action !== 'accept') return 'not ordered';
      seen.sampled = await tc.sample({ messages: [{ role: 'user', content: 'A colour?' }], maxTokens: 5 });
      return `ordered ${String(seen.answer.content?.size)} in ${seen.sampled.text}`;
    },
  });
  return { tool, seen };
}

describe('the task tool: questions of the sub-agent tools', () => {
  it("reach the calling run's human as its own approval request; sampling asks the calling run's model", async () => {
    const { tool, seen } = orderTool();
    const { agent } = await bootLead({
      tools: [tool],
      script: [
        { toolCalls: [task('buy a shirt', 'buyer', 't1')], usage: { inputTokens: 1, outputTokens: 1 } },
        { toolCalls: [{ name: 'order', id: 'o1' }], usage: { inputTokens: 1, outputTokens: 1 } },
        { text: 'Teal', usage: { inputTokens: 100, outputTokens: 10 } },
        { text: 'Bought an L shirt in teal.', usage: { inputTokens: 1, outputTokens: 1 } },
        { text: 'Done.', usage: { inputTokens: 1, outputTokens: 1 } },
      ],
      template: { tools: ['task'] },
      config: { subagents: { buyer: { description: 'Buys things.', tools: ['order'] } } },
    });
    const events: AgentEvent[] = [];
    const result = await agent.run('go', {
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'approval-request')
          void agent.approve(event.runId, event.callId, { approved: true, content: { size: 'L' } });
      },
    });
    expect(result.status).toBe('completed');
    const asked = events.find((e) => e.type === 'approval-request');
    expect(asked).toMatchObject({
      runId: result.runId,
      callId: 't1.ask-1',
      tool: 'task',
      question: QUESTION,
    });
    expect(seen.answer).toEqual({ action: 'accept', content: { size: 'L' } });
    expect(seen.sampled).toMatchObject({ text: 'Teal' });
    // Every token counted once: the lead's steps, the sub-agent's, and the sampling.
    expect(result.usage).toEqual({ inputTokens: 104, outputTokens: 14 });
  });

  it('are withdrawn when the sub-agent stops first (its timeout)', async () => {
    const { tool, seen } = orderTool();
    const { agent } = await bootLead({
      tools: [tool],
      options: { timeoutMs: 50 },
      script: [
        { toolCalls: [task('buy a shirt', 'buyer', 't1')] },
        { toolCalls: [{ name: 'order', id: 'o1' }] },
        'The task timed out.',
      ],
      template: { tools: ['task'] },
      config: { subagents: { buyer: { description: 'Buys things.', tools: ['order'] } } },
    });
    const events: AgentEvent[] = [];
    const result = await agent.run('go', { onEvent: (event) => events.push(event) });
    expect(result.status).toBe('completed');
    expect(events.find((e) => e.type === 'approval-result')).toMatchObject({
      callId: 't1.ask-1',
      status: 'cancelled',
    });
    expect(seen.answer).toMatchObject({ action: 'cancel' });
    expect(result.toolCalls[0]).toMatchObject({ ok: false });
  });
});
