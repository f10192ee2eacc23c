import { randomUUID } from 'node:crypto';
import { type Task, TaskState } from '@a2a-js/sdk';
import { Client } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { afterEach, describe, expect, it } from 'vitest';
import { answerTo, sayToolResult, serveAsker } from './asker.ts';
import { dataOf, rpc, type Served, sseData, textOf, userData, userText } from './helpers.ts';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** The official client over the v0.3 transport, from the v0.3 card (as a v0.3-only client reads it). */
async function legacyClient(s: Served): Promise<Client> {
  const card = (await (await fetch(`${s.url}/a2a/asker/.well-known/agent-card.json`)).json()) as {
    url: string;
    supportedInterfaces?: unknown;
  };
  const { supportedInterfaces: _v1, ...v03Only } = card;
  const client = new Client(
    new LegacyJsonRpcTransport({ endpoint: card.url }),
    parseLegacyAgentCard(v03Only),
  );
  expect(client.protocolVersion).toBe('0.3');
  return client;
}

interface V03Result {
  kind: string;
  id: string;
  contextId: string;
  status: {
    state: string;
    message?: {
      kind: string;
      role: string;
      parts: Record<string, unknown>[];
      metadata?: Record<string, unknown>;
    };
  };
  artifacts?: { parts: { kind: string; text?: string }[] }[];
  final?: boolean;
}

function v03Message(parts: Record<string, unknown>[], ids: { taskId?: string; contextId?: string } = {}) {
  return { kind: 'message', role: 'user', messageId: randomUUID(), parts, ...ids };
}

describe('A2A input-required over v0.3', () => {
  it('works with the SDK v0.3 client: a permission approved, a question answered with its fields', async () => {
    served = await serveAsker([
      { toolCalls: [{ name: 'guarded', input: { text: 'old' }, id: 'c1' }] },
      sayToolResult,
      { toolCalls: [{ name: 'ask_name', id: 'q1' }] },
      sayToolResult,
    ]);
    const client = await legacyClient(served);
    const asked = (await client.sendMessage(userText('do it'))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(asked.status?.message?.parts)).toContain('"guarded"');
    expect(dataOf(asked.status?.message?.parts)).toEqual([expect.objectContaining({ callId: 'c1' })]);
    const approved = (await client.sendMessage(userText('approve', answerTo(asked)))) as Task;
    expect(approved.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(approved.artifacts[0]?.parts)).toBe('told: {"guarded":"ok:old"}');

    const question = (await client.sendMessage(userText('who am I?'))) as Task;
    expect(question.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(dataOf(question.status?.message?.parts)).toEqual([
      expect.objectContaining({
        callId: 'q1.ask-1',
        question: expect.objectContaining({ message: 'What is your name?' }),
      }),
    ]);
    await expect(client.sendMessage(userData({ greeting: 'Hi' }, answerTo(question)))).rejects.toThrow(
      /does not fit what was asked/,
    );
    const answered = (await client.sendMessage(userData({ name: 'Old' }, answerTo(question)))) as Task;
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(answered.artifacts[0]?.parts)).toContain('"content":{"name":"Old","greeting":"Hello"}');
  });

  it('answers raw v0.3 JSON-RPC: input-required with text and data parts, a data-part denial, the stream ending at each stop', async () => {
    served = await serveAsker([
      { toolCalls: [{ name: 'guarded', input: { text: 'raw' }, id: 'c1' }] },
      sayToolResult,
    ]);
    const endpoint = `${served.url}/a2a/asker`;
    const streamed = await rpc(endpoint, {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/stream',
      params: { message: v03Message([{ kind: 'text', text: 'do it' }]) },
    });
    const events = sseData(await streamed.text()).map((data) => (data as { result: V03Result }).result);
    expect(events[0]?.kind).toBe('task');
    const last = events.at(-1)!;
    expect(last).toMatchObject({ kind: 'status-update', status: { state: 'input-required' } });
    const message = last.status.message!;
    expect(message).toMatchObject({ kind: 'message', role: 'agent', metadata: { callIds: ['c1'] } });
    expect(message.parts[0]).toMatchObject({
      kind: 'text',
      text: expect.stringContaining('"approve" or "deny"'),
    });
    expect(message.parts[1]).toMatchObject({
      kind: 'data',
      data: { type: 'approval-request', callId: 'c1' },
    });

    const task = events[0]!;
    const wrong = await rpc(endpoint, {
      jsonrpc: '2.0',
      id: 2,
      method: 'message/send',
      params: {
        message: v03Message([{ kind: 'text', text: 'perhaps' }], {
          taskId: task.id,
          contextId: task.contextId,
        }),
      },
    });
    expect(wrong.status).toBe(200);
    expect(((await wrong.json()) as { error: { code: number; message: string } }).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('is not an answer'),
    });

    const denied = await rpc(endpoint, {
      jsonrpc: '2.0',
      id: 3,
      method: 'message/send',
      params: {
        message: v03Message([{ kind: 'data', data: { approved: false, reason: 'old habits' } }], {
          taskId: task.id,
          contextId: task.contextId,
        }),
      },
    });
    const { result } = (await denied.json()) as { result: V03Result };
    expect(result).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
    expect(result.artifacts?.[0]?.parts[0]?.text).toContain('denied by the user: old habits');
  });
});
