import { describe, expect, it } from 'vitest';
import type { AgentEvent, ToolProgressEvent } from '../../../core/index.ts';
import { AguiTranslator } from '../../../plugins/hubos/agui/translate.ts';
import type { ForwardedEvent } from '../../../plugins/subagent/index.ts';
import { permittedTool } from '../../permissions/helpers.ts';
import { bootLead, task } from './helpers.ts';

async function collect(stream: AsyncIterable<AgentEvent>, onEvent: (event: AgentEvent) => void = () => {}) {
  const events: AgentEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    onEvent(event);
  }
  return events;
}

const progress = (events: AgentEvent[]) =>
  events.filter((event): event is ToolProgressEvent => event.type === 'tool-progress');
const forwarded = (event: ToolProgressEvent) => event.data as ForwardedEvent;

describe('the task tool: event forwarding', () => {
  it('is off by default: the parent stream shows the task call and its result only', async () => {
    const { agent } = await bootLead({ script: [{ toolCalls: [task('a')] }, 'sub answer', 'done'] });
    const events = await collect(agent.stream('go'));
    expect(progress(events)).toEqual([]);
    expect(
      events.filter((e) => e.type === 'text-delta').map((e) => e.type === 'text-delta' && e.delta),
    ).toEqual(['done']);
  });

  it("with forwardEvents, streams each sub-agent's events tagged with its task id, before the result", async () => {
    const { agent } = await bootLead({
      options: { forwardEvents: true },
      script: [{ toolCalls: [task('first', 'general-purpose', 't1')] }, 'sub answer here', 'done'],
    });
    const events = await collect(agent.stream('go'));
    const tagged = progress(events);
    expect(tagged.length).toBeGreaterThan(0);
    for (const event of tagged) {
      expect(event).toMatchObject({ callId: 't1', tool: 'task', step: 1 });
      expect(forwarded(event)).toMatchObject({ taskId: 't1', subagentType: 'general-purpose' });
      expect(forwarded(event).agent).toMatch(/^lead\.general-purpose\.\d+$/);
    }
    const inner = tagged.map((event) => forwarded(event).event.type);
    expect(inner[0]).toBe('run-start');
    expect(inner).toContain('text-delta');
    expect(inner.at(-1)).toBe('run-finish');
    // All of them arrive while the call runs: after its tool-call-end, before its tool-result.
    const types = events.map((e) => e.type);
    const first = types.indexOf('tool-progress');
    expect(first).toBeGreaterThan(types.indexOf('tool-call-end'));
    expect(types.lastIndexOf('tool-progress')).toBeLessThan(types.indexOf('tool-result'));
  });

  it("forwards a sub-agent's approval requests even when forwarding is off, so someone can answer", async () => {
    const write = permittedTool('write_file', ['fs:write']);
    const { agent, kernel } = await bootLead({
      tools: [write.tool],
      config: { permissions: { ask: ['fs:write'] } },
      script: [
        { toolCalls: [task('write it', 'general-purpose', 't9')] },
        { toolCalls: [{ name: 'write_file', input: { path: 'a.txt' } }] },
        'written',
        'done',
      ],
    });
    const events = await collect(agent.stream('go'), (event) => {
      if (event.type !== 'tool-progress') return;
      const inner = forwarded(event).event;
      if (inner.type === 'approval-request')
        void kernel.approvals.decide(inner.runId, inner.callId, { approved: true });
    });
    const inner = progress(events).map((event) => forwarded(event).event.type);
    expect(inner).toEqual(['approval-request', 'approval-result']);
    expect(write.inputs).toEqual([{ path: 'a.txt' }]);
    const end = events.at(-1);
    expect(end?.type === 'run-finish' && end.result.toolCalls[0]?.output).toMatchObject({
      answer: 'written',
    });
  });

  it('reaches AG-UI clients as a CUSTOM event', () => {
    const translator = new AguiTranslator('thread', 'run');
    const event: ToolProgressEvent = {
      type: 'tool-progress',
      runId: 'r',
      step: 1,
      callId: 'c1',
      tool: 'task',
      data: { hello: 1 },
    };
    expect(translator.translate(event)).toEqual([
      { type: 'CUSTOM', name: 'hubos.tool-progress', value: event },
    ]);
  });
});
