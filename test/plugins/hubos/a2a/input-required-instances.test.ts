// Two instances in one process sharing a store and a bus that says it is shared, as instances on
// PostgreSQL and Redis do: a task waiting for input on A is answered through B, and watched from B.
import { type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../../core/index.ts';
import type { ScriptStep } from '../../../../testing/index.ts';
import { answerTo, sayToolResult, serveAsker, sharedLocalBus } from './asker.ts';
import { type Served, textOf, userData, userText } from './helpers.ts';

const open: Served[] = [];
afterEach(async () => {
  for (const served of open.splice(0).reverse()) await served.close();
});

/** Instance A runs the turns (its model has the script); B has no script of its own. */
async function twoInstances(script: ScriptStep[]): Promise<[Served, Served]> {
  const shared = { store: new MemoryStore(), bus: sharedLocalBus() };
  const a = await serveAsker(script, {}, shared);
  open.push(a);
  const b = await serveAsker([], {}, shared);
  open.push(b);
  return [a, b];
}

const clientOf = (s: Served): Promise<Client> => new ClientFactory().createFromUrl(`${s.url}/a2a/asker/`);

describe('A2A input-required across instances', () => {
  it('takes on B the answer to a question asked on A: a wrong one refused, the right one completes the task', async () => {
    const [a, b] = await twoInstances([{ toolCalls: [{ name: 'ask_name', id: 'q1' }] }, sayToolResult]);
    const onA = await clientOf(a);
    const onB = await clientOf(b);
    const asked = (await onA.sendMessage(userText('who am I?'))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const seenOnB = await onB.getTask({ tenant: '', id: asked.id });
    expect(seenOnB.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    await expect(onB.sendMessage(userData({ greeting: 'Yo' }, answerTo(asked)))).rejects.toThrow(
      /does not fit what was asked/,
    );
    const done = (await onB.sendMessage(userData({ name: 'Cy' }, answerTo(asked)))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.artifacts[0]?.parts)).toBe(
      'told: {"action":"accept","content":{"name":"Cy","greeting":"Hello"}}',
    );
    // The run went on where it ran; B only followed it.
    expect(a.model.requests).toHaveLength(2);
    expect(b.model.requests).toHaveLength(0);
    expect((await onA.getTask({ tenant: '', id: asked.id })).status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });

  it('shows on a stream resubscribed on B the task answered on A going on to completion', async () => {
    const [a, b] = await twoInstances([
      { toolCalls: [{ name: 'guarded', input: { text: 'x' }, id: 'c1' }] },
      sayToolResult,
    ]);
    const onA = await clientOf(a);
    const onB = await clientOf(b);
    const asked = (await onA.sendMessage(userText('do it'))) as Task;
    const watching = onB.resubscribeTask({ tenant: '', id: asked.id });
    const head = await watching.next();
    expect(head.value?.payload?.$case).toBe('task');
    const rest = (async () => {
      const events: StreamResponse[] = [];
      for await (const event of { [Symbol.asyncIterator]: () => watching }) events.push(event);
      return events;
    })();

    const done = (await onA.sendMessage(userText('approve', answerTo(asked)))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const states = (await rest).flatMap((e) =>
      e.payload?.$case === 'statusUpdate' ? [e.payload.value.status?.state] : [],
    );
    expect(states[0]).toBe(TaskState.TASK_STATE_WORKING);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
