import { TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, describe, expect, it } from 'vitest';
import { keyedClient, rpc, type Served, serve, textOf, userText } from './helpers.ts';

const KEY = 'a2a-test-key-0123456789';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('A2A with API keys', () => {
  it('keeps the card public and says it wants a bearer token', async () => {
    served = await serve([], { apiKeys: [KEY] });
    const client = await new ClientFactory().createFromUrl(`${served.url}/a2a/helper/`);
    const card = await client.getAgentCard();
    expect(card.securitySchemes.bearer?.scheme).toMatchObject({
      $case: 'httpAuthSecurityScheme',
      value: { scheme: 'Bearer' },
    });
    expect(Object.keys(card.securityRequirements[0]?.schemes ?? {})).toEqual(['bearer']);
    const legacy = await fetch(`${served.url}/.well-known/agent-card.json`);
    expect(legacy.status).toBe(200);
    const v03 = (await legacy.json()) as { securitySchemes: unknown; security: unknown };
    expect(v03.securitySchemes).toEqual({
      bearer: { type: 'http', scheme: 'Bearer', description: 'A HubOS API key.' },
    });
    expect(v03.security).toEqual([{ bearer: [] }]);
  });

  it('answers 401 without the key, and works with it', async () => {
    served = await serve(['Authorized answer.', 'Streamed answer.'], { apiKeys: [KEY] });
    const endpoint = `${served.url}/a2a/helper`;
    const body = { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } };
    const anonymous = await rpc(endpoint, body, { 'A2A-Version': '1.0' });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    const wrong = await rpc(endpoint, body, { 'A2A-Version': '1.0', authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);

    const plain = await new ClientFactory().createFromUrl(`${served.url}/a2a/helper/`);
    await expect(plain.sendMessage(userText('hi'))).rejects.toThrow(/401/);

    const client = await keyedClient(`${served.url}/a2a/helper/`, KEY);
    const task = await client.sendMessage(userText('hi'));
    expect('id' in task && textOf(task.artifacts[0]?.parts)).toBe('Authorized answer.');
    let last: TaskState | undefined;
    for await (const event of client.sendMessageStream(userText('stream'))) {
      if (event.payload?.$case === 'statusUpdate') last = event.payload.value.status?.state;
    }
    expect(last).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
