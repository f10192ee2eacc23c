import { TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { A2A_ERROR_CODE, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { afterEach, describe, expect, it } from 'vitest';
import { rpc, type Served, serve, userText } from './helpers.ts';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

interface RpcError {
  jsonrpc: string;
  id: unknown;
  error: { code: number; message: string };
}

async function rpcError(response: Response, status = 200): Promise<RpcError> {
  expect(response.status).toBe(status);
  return (await response.json()) as RpcError;
}

describe('A2A errors', () => {
  it('reports an unknown task as TaskNotFound to the official client (get and cancel)', async () => {
    served = await serve([]);
    const client = await new ClientFactory().createFromUrl(`${served.url}/a2a/helper/`);
    await expect(client.getTask({ tenant: '', id: 'no-such-task' })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    await expect(
      client.cancelTask({ tenant: '', id: 'no-such-task', metadata: undefined }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('answers JSON-RPC errors for malformed requests and keeps serving', async () => {
    served = await serve(['Still here.']);
    const endpoint = `${served.url}/a2a/helper`;
    const v1 = { 'A2A-Version': '1.0' };

    const parse = await rpcError(await rpc(endpoint, '{not json', v1));
    expect(parse).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: A2A_ERROR_CODE.PARSE_ERROR } });

    for (const body of [[], 42, { jsonrpc: '1.0', id: 1, method: 'GetTask' }, { jsonrpc: '2.0', id: 2 }]) {
      const invalid = await rpcError(await rpc(endpoint, body, v1));
      expect(invalid.error.code).toBe(A2A_ERROR_CODE.INVALID_REQUEST);
    }
    const badId = await rpcError(
      await rpc(endpoint, { jsonrpc: '2.0', id: { x: 1 }, method: 'GetTask' }, v1),
    );
    expect(badId).toMatchObject({ id: null, error: { code: A2A_ERROR_CODE.INVALID_REQUEST } });

    const unknown = await rpcError(
      await rpc(endpoint, { jsonrpc: '2.0', id: 3, method: 'Nope', params: {} }, v1),
    );
    expect(unknown).toMatchObject({ id: 3, error: { code: A2A_ERROR_CODE.METHOD_NOT_FOUND } });

    const noParams = await rpcError(await rpc(endpoint, { jsonrpc: '2.0', id: 4, method: 'GetTask' }, v1));
    expect(noParams).toMatchObject({ id: 4, error: { code: A2A_ERROR_CODE.INVALID_PARAMS } });

    const noMessage = await rpcError(
      await rpc(endpoint, { jsonrpc: '2.0', id: 5, method: 'SendMessage', params: {} }, v1),
    );
    expect(noMessage).toMatchObject({ id: 5, error: { code: A2A_ERROR_CODE.INVALID_PARAMS } });

    const missing = await rpcError(
      await rpc(endpoint, { jsonrpc: '2.0', id: 'x', method: 'GetTask', params: { id: 'nope' } }, v1),
    );
    expect(missing).toMatchObject({ id: 'x', error: { code: A2A_ERROR_CODE.TASK_NOT_FOUND } });

    const slash = await rpcError(
      await rpc(`${endpoint}/`, { jsonrpc: '2.0', id: 'y', method: 'GetTask', params: { id: 'nope' } }, v1),
    );
    expect(slash).toMatchObject({ id: 'y', error: { code: A2A_ERROR_CODE.TASK_NOT_FOUND } });

    const xml = await rpcError(
      await rpc(endpoint, '<a/>', { ...v1, 'content-type': 'application/xml' }),
      415,
    );
    expect(xml.error.code).toBe(A2A_ERROR_CODE.CONTENT_TYPE_NOT_SUPPORTED);
    // What a web page can send anywhere unasked starts nothing, even as valid JSON.
    const send = { jsonrpc: '2.0', id: 9, method: 'SendMessage', params: { message: userText('hi') } };
    const plain = await rpcError(await rpc(endpoint, send, { ...v1, 'content-type': 'text/plain' }), 415);
    expect(plain.error.code).toBe(A2A_ERROR_CODE.CONTENT_TYPE_NOT_SUPPORTED);
    const deep = await rpcError(await rpc(endpoint, `${'['.repeat(10_000)}${']'.repeat(10_000)}`, v1));
    expect(deep.error).toMatchObject({
      code: A2A_ERROR_CODE.PARSE_ERROR,
      message: expect.stringContaining('64 levels'),
    });

    const version = await rpcError(
      await rpc(
        endpoint,
        { jsonrpc: '2.0', id: 6, method: 'GetTask', params: { id: 'x' } },
        { 'A2A-Version': '9.9' },
      ),
    );
    expect(version.error.code).toBe(A2A_ERROR_CODE.VERSION_NOT_SUPPORTED);

    // The server is unharmed.
    const client = await new ClientFactory().createFromUrl(`${served.url}/a2a/helper/`);
    const task = await client.sendMessage(userText('still there?'));
    expect('id' in task && task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('refuses bodies over the limit with 413', async () => {
    served = await serve([], { bodyLimit: 2048 });
    const body = { jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'x'.repeat(5000) } };
    const response = await rpc(`${served.url}/a2a/helper`, body, { 'A2A-Version': '1.0' });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('fails the task, not the server, when the message has no text', async () => {
    served = await serve([]);
    const client = await new ClientFactory().createFromUrl(`${served.url}/a2a/helper/`);
    const request = userText('');
    request.message!.parts = [];
    const task = await client.sendMessage(request);
    expect('id' in task && task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
  });

  it('refuses a message for a finished task', async () => {
    served = await serve(['Done.']);
    const client = await new ClientFactory().createFromUrl(`${served.url}/a2a/helper/`);
    const task = await client.sendMessage(userText('once'));
    const taskId = 'id' in task ? task.id : '';
    await expect(client.sendMessage(userText('again', { taskId }))).rejects.toThrow(/terminal state/);
    await expect(client.cancelTask({ tenant: '', id: taskId, metadata: undefined })).rejects.toThrow(
      /not cancelable/i,
    );
  });
});
