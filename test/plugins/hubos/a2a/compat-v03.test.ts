import { randomUUID } from 'node:crypto';
import { type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { Client } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { afterEach, describe, expect, it } from 'vitest';
import { rpc, type Served, serve, sseData, textOf, userText } from './helpers.ts';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

interface LegacyCard {
  protocolVersion: string;
  url: string;
  preferredTransport: string;
  name: string;
  capabilities: { streaming?: boolean };
  skills: { id: string }[];
  supportedInterfaces: unknown[];
}

/** A v0.3 card: what a client that sends no `A2A-Version` header gets. */
async function legacyCard(s: Served): Promise<LegacyCard> {
  const response = await fetch(`${s.url}/a2a/helper/.well-known/agent-card.json`);
  expect(response.status).toBe(200);
  return (await response.json()) as LegacyCard;
}

function legacyMessage(text: string) {
  return { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text }] };
}

describe('A2A v0.3 compatibility', () => {
  it('serves a v0.3 card (with the v1.0 interfaces beside it) to clients that send no version', async () => {
    served = await serve([]);
    const card = await legacyCard(served);
    expect(card).toMatchObject({
      protocolVersion: '0.3',
      name: 'helper',
      url: `${served.url}/a2a/helper`,
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: true },
    });
    expect(card.skills.map((skill) => skill.id)).toEqual(['helper', 'helper/lookup', 'helper/slow']);
    expect(card.supportedInterfaces).toHaveLength(2);
  });

  it('works with the SDK v0.3 client transport: send, stream, get, unknown task', async () => {
    served = await serve(['Old but gold.', 'Streamed, old style.']);
    const card = await legacyCard(served);
    const { supportedInterfaces: _v1, ...v03Only } = card;
    const client = new Client(
      new LegacyJsonRpcTransport({ endpoint: card.url }),
      parseLegacyAgentCard(v03Only),
    );
    expect(client.protocolVersion).toBe('0.3');

    const task = (await client.sendMessage(userText('hello'))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.artifacts[0]?.parts)).toBe('Old but gold.');

    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(userText('stream it'))) events.push(event);
    expect(events[0]?.payload?.$case).toBe('task');
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const fetched = await client.getTask({ tenant: '', id: task.id });
    expect(fetched.id).toBe(task.id);
    await expect(client.getTask({ tenant: '', id: 'missing' })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('answers raw v0.3 JSON-RPC as an older client sends it (no version header)', async () => {
    served = await serve(['Plain JSON.', 'SSE too.']);
    const endpoint = `${served.url}/a2a/helper`;
    const sent = await rpc(endpoint, {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: legacyMessage('hi') },
    });
    const { result } = (await sent.json()) as {
      result: {
        kind: string;
        id: string;
        status: { state: string };
        artifacts: { parts: { text: string }[] }[];
      };
    };
    expect(result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(result.artifacts[0]?.parts[0]?.text).toBe('Plain JSON.');

    const streamed = await rpc(endpoint, {
      jsonrpc: '2.0',
      id: 2,
      method: 'message/stream',
      params: { message: legacyMessage('stream') },
    });
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    const events = sseData(await streamed.text()).map(
      (data) => (data as { result: { kind: string; final?: boolean; status?: { state: string } } }).result,
    );
    expect(events[0]?.kind).toBe('task');
    expect(events.at(-1)).toMatchObject({
      kind: 'status-update',
      final: true,
      status: { state: 'completed' },
    });

    const got = await rpc(endpoint, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tasks/get',
      params: { id: result.id },
    });
    expect(((await got.json()) as { result: { id: string } }).result.id).toBe(result.id);
    const missing = await rpc(endpoint, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tasks/get',
      params: { id: 'nope' },
    });
    expect(((await missing.json()) as { error: { code: number } }).error.code).toBe(-32001);
  });
});
