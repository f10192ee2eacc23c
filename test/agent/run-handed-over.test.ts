// A run waiting for an approval when another instance takes it over: the instance it leaves says
// nothing of the call (the new holder waits on the same request and gives its real result).
import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../core/index.ts';
import { RunHandedOver } from '../../core/runs/run-handed-over.ts';
import { bootAgent, makeTool } from './helpers.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

describe('a run handed over while a call waits for approval', () => {
  it('stops without an outcome for the call: no refusal in its session, the request still pending', async () => {
    let ran = 0;
    const { kernel, agent } = await bootAgent({
      script: [{ toolCalls: [{ name: 'charge', input: {} }] }, 'done'],
      tools: [makeTool('charge', () => ++ran)],
      config: { permissions: { ask: ['charge'] } },
    });
    kernels.push(kernel);
    const controller = new AbortController();
    const events = [];
    for await (const event of agent.stream('go', {
      sessionId: 's1',
      runId: 'run-1',
      signal: controller.signal,
    })) {
      events.push(event);
      if (event.type === 'approval-request') controller.abort(new RunHandedOver('run-1'));
    }
    // Stopped, with no outcome for the call: the instance that took the run over gives it.
    expect(events.at(-1)).toMatchObject({ type: 'run-finish', result: { status: 'cancelled' } });
    expect(ran).toBe(0);
    const said = await kernel.sessions.load(agent.id, 's1');
    expect(said.filter((message) => message.role === 'tool')).toEqual([]);
    const request = await kernel.approvals.get('run-1', 'call_1');
    expect(request).toMatchObject({ status: 'pending', tool: 'charge' });
  });
});
