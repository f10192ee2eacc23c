// Guardrails on the A2A and AG-UI faces, each with its official client over a real socket.
import { type Task, TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { HttpAgent, type RunErrorEvent, type TextMessageContentEvent } from '@ag-ui/client';
import { afterEach, describe, expect, it } from 'vitest';
import { blockTerm, CARD_NUMBER } from '../../guardrails/test-guardrails.ts';
import { textOf, userText } from './a2a/helpers.ts';
import { ofType, runWith } from './agui/helpers.ts';
import { deltas, type Guarded, serveGuarded } from './guardrails-helpers.ts';

let served: Guarded | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const a2aClient = (s: Guarded) => new ClientFactory().createFromUrl(`${s.url}/a2a/helper/`);

describe('guardrails over A2A', () => {
  it('pii keeps a card number from the model and from the task', async () => {
    served = await serveGuarded([`Stored ${CARD_NUMBER} for you.`], { input: ['pii'], output: ['pii'] });
    const client = await a2aClient(served);
    const task = (await client.sendMessage(userText(`my card is ${CARD_NUMBER}`))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.artifacts[0]?.parts)).toBe('Stored [redacted:card] for you.');
    expect(JSON.stringify(task.artifacts)).not.toContain('4111');
    expect(JSON.stringify(task.status)).not.toContain('4111');
    expect(JSON.stringify(served.model.requests)).not.toContain('4111');
  });

  it('a tripwire ends the task failed with GUARDRAIL_TRIPPED', async () => {
    served = await serveGuarded([deltas('Fine. The secret', ' plan is ready.')], {
      output: [blockTerm('secret plan')],
    });
    const client = await a2aClient(served);
    const task = (await client.sendMessage(userText('the plan?'))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(task.status?.message?.parts)).toBe(
      'GUARDRAIL_TRIPPED: guardrail "block-secret plan" tripped on the output: it says "secret plan"',
    );
    expect(JSON.stringify(task)).not.toMatch(/secret plan is|plan is ready/);
  });
});

describe('guardrails over AG-UI', () => {
  it('pii redacts a card number in the streamed answer', async () => {
    served = await serveGuarded([deltas('Card 4111 1111 ', '1111 1111 noted.')], { output: ['pii'] });
    const agent = new HttpAgent({ url: `${served.url}/agui/helper` });
    const { events, error } = await runWith(agent, 'hi');
    expect(error).toBeUndefined();
    const text = ofType<TextMessageContentEvent>(events, 'TEXT_MESSAGE_CONTENT').map((e) => e.delta);
    expect(text.join('')).toBe('Card [redacted:card] noted.');
    expect(JSON.stringify(events)).not.toContain('4111');
    // The rewrite (carried on the step's end) reaches the client as a CUSTOM event of its own.
    const verdicts = events.filter((e) => e.type === 'CUSTOM' && 'name' in e && e.name === 'hubos.guardrail');
    expect(verdicts).toMatchObject([
      { value: { type: 'guardrail', step: 1, guardrail: 'pii', stage: 'output', action: 'rewrite' } },
    ]);
  });

  it('a tripwire ends the run with RUN_ERROR GUARDRAIL_TRIPPED; the blocked text never streams', async () => {
    served = await serveGuarded([deltas('Hello. The pass', 'word is x.')], {
      output: [blockTerm('password')],
    });
    const agent = new HttpAgent({ url: `${served.url}/agui/helper` });
    const { events } = await runWith(agent, 'hi');
    const errors = ofType<RunErrorEvent>(events, 'RUN_ERROR');
    expect(errors).toMatchObject([
      {
        code: 'GUARDRAIL_TRIPPED',
        message: 'guardrail "block-password" tripped on the output: it says "password"',
      },
    ]);
    const text = ofType<TextMessageContentEvent>(events, 'TEXT_MESSAGE_CONTENT').map((e) => e.delta);
    expect(text).toEqual(['Hello. ']);
    const trip = events.findIndex((e) => e.type === 'CUSTOM' && 'name' in e && e.name === 'hubos.guardrail');
    expect(events[trip]).toMatchObject({
      value: { guardrail: 'block-password', stage: 'output', action: 'trip' },
    });
    expect(trip).toBeLessThan(events.findIndex((e) => e.type === 'RUN_ERROR'));
  });
});
