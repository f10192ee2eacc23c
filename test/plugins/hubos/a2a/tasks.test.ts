import { type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, type Served, serve, textOf, userText } from './helpers.ts';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function helperClient(s: Served): Promise<Client> {
  return new ClientFactory().createFromUrl(`${s.url}/a2a/helper/`);
}

function asTask(result: unknown): Task {
  expect(result).toHaveProperty('id');
  return result as Task;
}

describe('A2A tasks', () => {
  it('answers a blocking SendMessage with a completed task holding the answer', async () => {
    served = await serve(['Hello from HubOS.']);
    const client = await helperClient(served);
    const task = asTask(await client.sendMessage(userText('hi')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts).toHaveLength(1);
    expect(textOf(task.artifacts[0]?.parts)).toBe('Hello from HubOS.');
    expect(task.artifacts[0]?.parts).toHaveLength(1);
    expect(textOf(task.status?.message?.parts)).toBe('Hello from HubOS.');
    expect(textOf(task.history[0]?.parts)).toBe('hi');
    expect(served.model.requests[0]?.messages.at(-1)).toMatchObject({ role: 'user', content: 'hi' });
    // The run went through HubOS's run manager, so the REST API knows it too.
    const runId = (task.metadata as { hubos: { runId: string } }).hubos.runId;
    const run = (await (await fetch(`${served.url}/api/runs/${runId}`)).json()) as { status: string };
    expect(run.status).toBe('completed');
  });

  it('streams the task, its working status, tool calls, answer chunks and the completed status in order', async () => {
    served = await serve([
      { text: 'Let me look. ', toolCalls: [{ name: 'lookup', input: { word: 'hola' }, id: 'c1' }] },
      'Hola means hello.',
    ]);
    const client = await helperClient(served);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(userText('what is hola?'))) events.push(event);
    const kinds = events.map((event) => event.payload?.$case);
    expect(kinds[0]).toBe('task');
    expect(kinds.at(-1)).toBe('statusUpdate');
    const statuses = events.flatMap((e) =>
      e.payload?.$case === 'statusUpdate' ? [e.payload.value.status] : [],
    );
    expect(statuses.map((status) => status?.state)).toEqual([
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_COMPLETED,
    ]);
    const data = statuses.slice(1, 3).map((status) => {
      const content = status?.message?.parts[0]?.content;
      return content?.$case === 'data' ? content.value : undefined;
    });
    expect(data).toEqual([
      { type: 'tool-call', id: 'c1', name: 'lookup', input: { word: 'hola' } },
      expect.objectContaining({
        type: 'tool-result',
        id: 'c1',
        name: 'lookup',
        ok: true,
        output: { meaning: 'hola means hello' },
      }),
    ]);
    const artifacts = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
    // The text before the tool call streams first; the answer replaces it, and the last chunk is the whole answer.
    expect(textOf(artifacts[0]?.artifact?.parts)).toBe('Let me look. ');
    expect(artifacts.at(-1)).toMatchObject({ append: false, lastChunk: true });
    expect(textOf(artifacts.at(-1)?.artifact?.parts)).toBe('Hola means hello.');
    expect(kinds.indexOf('artifactUpdate')).toBeLessThan(kinds.lastIndexOf('statusUpdate'));

    const taskId = events[0]?.payload?.$case === 'task' ? events[0].payload.value.id : '';
    const stored = await client.getTask({ tenant: '', id: taskId });
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(stored.artifacts.map((artifact) => textOf(artifact.parts))).toEqual(['Hola means hello.']);
  });

  it('continues the conversation of a context (the HubOS session) across tasks', async () => {
    served = await serve(['First.', 'Second.']);
    const client = await helperClient(served);
    const first = asTask(await client.sendMessage(userText('one')));
    const second = asTask(await client.sendMessage(userText('two', { contextId: first.contextId })));
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    const seen = served.model.requests[1]?.messages.map((m) => [m.role, m.content]);
    expect(seen).toEqual([
      ['user', 'one'],
      ['assistant', 'First.'],
      ['user', 'two'],
    ]);
  });

  it('gets and lists tasks, filtered by context and paged', async () => {
    served = await serve(['A.', 'B.', 'C.']);
    const client = await helperClient(served);
    const a = asTask(await client.sendMessage(userText('a')));
    const b = asTask(await client.sendMessage(userText('b', { contextId: a.contextId })));
    const c = asTask(await client.sendMessage(userText('c')));

    const got = await client.getTask({ tenant: '', id: b.id, historyLength: 1 });
    expect(got.id).toBe(b.id);
    expect(got.history).toHaveLength(1);

    const all = await client.listTasks(listRequest({}));
    expect(all.totalSize).toBe(3);
    expect(all.tasks.map((task) => task.id)).toEqual([c.id, b.id, a.id]);
    expect(all.tasks.every((task) => task.artifacts.length === 0)).toBe(true);

    const inContext = await client.listTasks(listRequest({ contextId: a.contextId, includeArtifacts: true }));
    expect(inContext.tasks.map((task) => task.id)).toEqual([b.id, a.id]);
    expect(textOf(inContext.tasks[0]?.artifacts[0]?.parts)).toBe('B.');

    const page1 = await client.listTasks(listRequest({ pageSize: 2 }));
    expect(page1.tasks.map((task) => task.id)).toEqual([c.id, b.id]);
    expect(page1.nextPageToken).not.toBe('');
    const page2 = await client.listTasks(listRequest({ pageSize: 2, pageToken: page1.nextPageToken }));
    expect(page2.tasks.map((task) => task.id)).toEqual([a.id]);
    expect(page2.nextPageToken).toBe('');

    const completed = await client.listTasks(listRequest({ status: TaskState.TASK_STATE_COMPLETED }));
    expect(completed.totalSize).toBe(3);
    const failed = await client.listTasks(listRequest({ status: TaskState.TASK_STATE_FAILED }));
    expect(failed.totalSize).toBe(0);
  });

  it('cancels a running task: the agent run is aborted and the task ends canceled', async () => {
    served = await serve([{ toolCalls: [{ name: 'slow' }] }, 'never']);
    const client = await helperClient(served);
    const stream = client.sendMessageStream(userText('take your time'));
    const first = await stream.next();
    const taskId = first.value?.payload?.$case === 'task' ? first.value.payload.value.id : '';
    expect(taskId).not.toBe('');
    // Wait for the slow tool to be running, then cancel.
    await eventually(
      async () => (await client.getTask({ tenant: '', id: taskId })).history.length,
      (length) => length >= 2,
    );
    const canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest: StreamResponse[] = [];
    for await (const event of stream) rest.push(event);
    const last = rest.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: '', id: taskId })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    expect(served.hubos.runs.running).toBe(0);
    expect(served.model.remaining).toBe(1);
  });

  it('cancels a blocking SendMessage waiting on a slow model step', async () => {
    served = await serve([{ text: 'late', delayMs: 10_000 }]);
    const client = await helperClient(served);
    const pending = client.sendMessage(userText('slowly'));
    const listed = await eventually(
      () => client.listTasks(listRequest({})),
      (list) => list.tasks.length === 1,
    );
    const taskId = listed.tasks[0]!.id;
    await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    const task = asTask(await pending);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('refuses a new message for a task still running, and lets a client resubscribe to it', async () => {
    served = await serve([{ toolCalls: [{ name: 'slow' }] }, 'never']);
    const client = await helperClient(served);
    const request = userText('work');
    request.configuration = {
      returnImmediately: true,
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
    };
    const started = asTask(await client.sendMessage(request));
    await eventually(
      async () => (await client.getTask({ tenant: '', id: started.id })).history.length,
      (length) => length >= 2,
    );
    await expect(
      client.sendMessage(userText('and more', { taskId: started.id, contextId: started.contextId })),
    ).rejects.toThrow(/still working/);

    const resubscribed = client.resubscribeTask({ tenant: '', id: started.id });
    const head = await resubscribed.next();
    expect(head.value?.payload?.$case).toBe('task');
    await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    const rest: StreamResponse[] = [];
    for await (const event of resubscribed) rest.push(event);
    const last = rest.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('ends the task failed when the model fails', async () => {
    served = await serve([{ error: 'the model is down' }]);
    const client = await helperClient(served);
    const task = asTask(await client.sendMessage(userText('hi')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(task.status?.message?.parts)).toBe('MODEL_HTTP_ERROR: the model is down');
  });
});

function listRequest(
  params: Partial<Parameters<Client['listTasks']>[0]>,
): Parameters<Client['listTasks']>[0] {
  return {
    tenant: '',
    contextId: '',
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageToken: '',
    statusTimestampAfter: undefined,
    ...params,
  };
}
