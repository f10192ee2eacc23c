import { Role, SendMessageRequest, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptStep } from '../../../../testing/index.ts';
import { answerTo, NAME_QUESTION, sayToolResult, serveAsker } from './asker.ts';
import { dataOf, eventually, keyedClient, rpc, type Served, textOf, userData, userText } from './helpers.ts';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const askerClient = (s: Served): Promise<Client> => new ClientFactory().createFromUrl(`${s.url}/a2a/asker/`);

function asTask(result: unknown): Task {
  expect(result).toHaveProperty('id');
  return result as Task;
}

const guardedCall = (id = 'c1', text = 'hi'): ScriptStep => ({
  toolCalls: [{ name: 'guarded', input: { text }, id }],
});

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The task event's state, then each status update's. */
function statesOf(events: StreamResponse[]): TaskState[] {
  return events.flatMap((event) => {
    const payload = event.payload;
    if (payload?.$case === 'task') return [payload.value.status!.state];
    if (payload?.$case === 'statusUpdate') return [payload.value.status!.state];
    return [];
  });
}

/** The data parts of the status messages of a stream, or of a task's history. */
function saidData(source: StreamResponse[] | Task): Record<string, unknown>[] {
  const messages = Array.isArray(source)
    ? source.flatMap((e) => (e.payload?.$case === 'statusUpdate' ? [e.payload.value.status?.message] : []))
    : source.history;
  return messages.flatMap((message) => dataOf(message?.parts)) as Record<string, unknown>[];
}

const lastToolMessage = (s: Served) =>
  s.model.requests.at(-1)?.messages.filter((message) => message.role === 'tool');

describe('A2A input-required: a permission `ask`', () => {
  it('puts the task in input-required saying what is asked; "approve" runs the tool and the task completes', async () => {
    served = await serveAsker([guardedCall(), sayToolResult]);
    const client = await askerClient(served);
    const asked = asTask(await client.sendMessage(userText('do it')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const message = asked.status!.message!;
    expect(message.role).toBe(Role.ROLE_AGENT);
    const text = textOf(message.parts);
    for (const said of ['"guarded"', '{"text":"hi"}', 'a2a:guarded', '"approve"', '"deny"'])
      expect(text).toContain(said);
    expect(dataOf(message.parts)).toEqual([
      {
        type: 'approval-request',
        callId: 'c1',
        tool: 'guarded',
        input: { text: 'hi' },
        permissions: ['a2a:guarded'],
        rule: 'a2a:guarded',
        expiresAt: expect.any(String),
      },
    ]);
    expect(message.metadata).toMatchObject({ callIds: ['c1'] });
    expect(asked.metadata).toMatchObject({ hubos: { pending: ['c1'] } });
    expect(served.model.requests).toHaveLength(1); // the tool waits

    const done = asTask(await client.sendMessage(userText('approve', answerTo(asked))));
    expect(done.id).toBe(asked.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.artifacts[0]?.parts)).toBe('told: {"guarded":"ok:hi"}');
    expect(saidData(done)).toContainEqual(
      expect.objectContaining({ type: 'approval-result', callId: 'c1', approved: true, status: 'approved' }),
    );
    expect(
      textOf(done.history.find((m) => m.role === Role.ROLE_USER && textOf(m.parts) === 'approve')?.parts),
    ).toBe('approve');
  });

  it('streams working, the tool call and input-required; a denial with a reason streams on to completed', async () => {
    served = await serveAsker([guardedCall(), sayToolResult]);
    const client = await askerClient(served);
    const first = await collect(client.sendMessageStream(userText('do it')));
    expect(statesOf(first)).toEqual([
      TaskState.TASK_STATE_SUBMITTED,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_INPUT_REQUIRED,
    ]);
    expect(saidData(first)[0]).toMatchObject({ type: 'tool-call', id: 'c1', name: 'guarded' });
    const task = first[0]?.payload?.$case === 'task' ? first[0].payload.value : undefined;

    const second = await collect(client.sendMessageStream(userText('Deny: not today', answerTo(task!))));
    const states = statesOf(second);
    expect(states[0]).toBe(TaskState.TASK_STATE_WORKING); // the task, as the answer left it
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(new Set(states.slice(0, -1))).toEqual(new Set([TaskState.TASK_STATE_WORKING]));
    expect(saidData(second)).toEqual([
      expect.objectContaining({
        type: 'approval-result',
        callId: 'c1',
        approved: false,
        reason: 'not today',
      }),
      expect.objectContaining({ type: 'tool-result', id: 'c1', ok: false }),
    ]);
    expect(lastToolMessage(served)?.[0]?.content).toContain('denied by the user: not today');
    const stored = await client.getTask({ tenant: '', id: task!.id });
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(stored.artifacts[0]?.parts)).toContain('denied by the user: not today');
  });

  it('says every request of a turn; an answer without callId is refused naming them; they are answered one by one', async () => {
    served = await serveAsker([
      {
        toolCalls: [
          { name: 'guarded', input: { text: 'a' }, id: 'c1' },
          { name: 'guarded', input: { text: 'b' }, id: 'c2' },
        ],
      },
      sayToolResult,
    ]);
    const client = await askerClient(served);
    const asked = asTask(await client.sendMessage(userText('both')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // Read as it stands: both requests, whichever the turn saw first.
    const both = await eventually(
      () => client.getTask({ tenant: '', id: asked.id }),
      (task) => dataOf(task.status?.message?.parts).length === 2,
    );
    expect(textOf(both.status?.message?.parts)).toContain('2 requests wait for an answer');
    expect(both.status?.message?.metadata).toMatchObject({ callIds: ['c1', 'c2'] });

    await expect(client.sendMessage(userText('approve', answerTo(asked)))).rejects.toThrow(
      /waits for 2 answers: c1 \(permission for "guarded"\), c2 \(permission for "guarded"\)/,
    );
    await expect(
      client.sendMessage(userData({ callId: 'c9', approved: true }, answerTo(asked))),
    ).rejects.toThrow(/has no request "c9" waiting for an answer; waiting: c1/);

    // Named in the message's metadata this time (a data part's `callId` works the same).
    const denyB = userText('deny: not b', answerTo(asked));
    denyB.message!.metadata = { callId: 'c2' };
    const one = asTask(await client.sendMessage(denyB));
    expect(one.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(dataOf(one.status?.message?.parts)).toEqual([expect.objectContaining({ callId: 'c1' })]);

    const done = asTask(await client.sendMessage(userText('yes', answerTo(asked))));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.artifacts[0]?.parts)).toBe(
      'told: {"guarded":"ok:a"} | Error: denied by the user: not b',
    );
  });
});

describe('A2A input-required: a tool asks a question', () => {
  const askName: ScriptStep = { toolCalls: [{ name: 'ask_name', id: 'q1' }] };

  it('asks with the schema; the fields answer it, defaults filled in', async () => {
    served = await serveAsker([askName, sayToolResult]);
    const client = await askerClient(served);
    const asked = asTask(await client.sendMessage(userText('who am I?')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const message = asked.status!.message!;
    expect(textOf(message.parts)).toContain('The tool "ask_name" asks: What is your name?');
    expect(textOf(message.parts)).toContain(
      'name (string, required) — what to call you; greeting (string, default "Hello")',
    );
    expect(dataOf(message.parts)).toEqual([
      expect.objectContaining({
        type: 'approval-request',
        callId: 'q1.ask-1',
        tool: 'ask_name',
        question: NAME_QUESTION,
      }),
    ]);
    expect(message.metadata).toMatchObject({ callIds: ['q1.ask-1'] });

    const done = asTask(await client.sendMessage(userData({ name: 'Ada' }, answerTo(asked))));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.artifacts[0]?.parts)).toBe(
      'told: {"action":"accept","content":{"name":"Ada","greeting":"Hello"}}',
    );
    expect(saidData(done)).toContainEqual(
      expect.objectContaining({
        type: 'approval-result',
        callId: 'q1.ask-1',
        answer: { name: 'Ada', greeting: 'Hello' },
      }),
    );
  });

  it('refuses answers that do not fit with a JSON-RPC error, the task still waiting; a fitting one then completes it', async () => {
    served = await serveAsker([askName, sayToolResult]);
    const client = await askerClient(served);
    const asked = asTask(await client.sendMessage(userText('who am I?')));
    const wrong = [
      userData({ greeting: 'Hi' }, answerTo(asked)),
      userData({ name: 42 }, answerTo(asked)),
      userText('approve', answerTo(asked)),
    ];
    for (const answer of wrong)
      await expect(client.sendMessage(answer)).rejects.toThrow(/does not fit what was asked.*name/);
    // Text that only starts like an answer is none: it never approves by accident.
    for (const text of ['maybe later', 'ok no', "y'all should not", 'Allow me to say: deny'])
      await expect(client.sendMessage(userText(text, answerTo(asked)))).rejects.toThrow(/is not an answer/);
    await expect(
      client.sendMessage(userData({ approved: true, callId: 'q1' }, answerTo(asked))),
    ).rejects.toThrow(/has no request "q1"/);
    // On the wire: invalid params, saying which request and why in the error's data.
    const raw = await rpc(
      `${served.url}/a2a/asker`,
      { jsonrpc: '2.0', id: 7, method: 'SendMessage', params: SendMessageRequest.toJSON(wrong[0]!) },
      { 'A2A-Version': '1.0' },
    );
    expect(raw.status).toBe(200);
    const { error } = (await raw.json()) as {
      error: { code: number; data: { reason: string; metadata: Record<string, string> }[] };
    };
    expect(error.code).toBe(-32602);
    expect(error.data[0]).toMatchObject({
      reason: 'INVALID_PARAMS',
      metadata: { code: 'APPROVAL_ANSWER_INVALID', callId: 'q1.ask-1' },
    });
    const still = await client.getTask({ tenant: '', id: asked.id });
    expect(still.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(served.model.requests).toHaveLength(1);

    const done = asTask(
      await client.sendMessage(
        userData({ approved: true, content: { name: 'Bo', greeting: 'Hey' } }, answerTo(asked)),
      ),
    );
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.artifacts[0]?.parts)).toBe(
      'told: {"action":"accept","content":{"name":"Bo","greeting":"Hey"}}',
    );
  });

  it('"no" declines the question: the tool hears it and the task completes', async () => {
    served = await serveAsker([askName, sayToolResult]);
    const client = await askerClient(served);
    const asked = asTask(await client.sendMessage(userText('who am I?')));
    const done = asTask(await client.sendMessage(userText('no, rather not', answerTo(asked))));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.artifacts[0]?.parts)).toBe('told: {"action":"decline","content":null}');
  });
});

describe('A2A input-required: who answers, and from where', () => {
  it('lets only the key that made the task answer it: another key finds no such task', async () => {
    const owner = 'a2a-owner-key-0123456789';
    const other = 'a2a-other-key-0123456789';
    served = await serveAsker([guardedCall(), sayToolResult], { apiKeys: [owner, other] });
    const mine = await keyedClient(`${served.url}/a2a/asker/`, owner);
    const theirs = await keyedClient(`${served.url}/a2a/asker/`, other);
    const asked = asTask(await mine.sendMessage(userText('do it')));
    for (const answer of [
      userText('approve', answerTo(asked)),
      userData({ callId: 'c1', approved: true }, answerTo(asked)),
    ])
      await expect(theirs.sendMessage(answer)).rejects.toThrow(/not found/i);
    await expect(theirs.getTask({ tenant: '', id: asked.id })).rejects.toThrow(/not found/i);
    expect((await mine.getTask({ tenant: '', id: asked.id })).status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
    const done = asTask(await mine.sendMessage(userText('approve', answerTo(asked))));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('goes back to working when the approval is decided over REST, and a resubscribed stream follows it to the end', async () => {
    let letItFinish!: () => void;
    const finishing = new Promise<void>((resolve) => {
      letItFinish = resolve;
    });
    served = await serveAsker([
      guardedCall(),
      async () => {
        await finishing;
        return 'Finished.';
      },
    ]);
    const client = await askerClient(served);
    const asked = asTask(await client.sendMessage(userText('do it')));
    const runId = (asked.metadata as { hubos: { runId: string } }).hubos.runId;

    const watching = client.resubscribeTask({ tenant: '', id: asked.id });
    const head = await watching.next();
    expect(head.value?.payload?.$case === 'task' && head.value.payload.value.status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
    const rest = collect({ [Symbol.asyncIterator]: () => watching });

    const decided = await fetch(`${served.url}/api/runs/${runId}/approvals/c1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true }),
    });
    expect(decided.status).toBe(200);
    const working = await eventually(
      () => client.getTask({ tenant: '', id: asked.id }),
      (task) => task.status?.state === TaskState.TASK_STATE_WORKING,
    );
    expect(working.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    letItFinish();

    const followed = await rest;
    expect(statesOf(followed)[0]).toBe(TaskState.TASK_STATE_WORKING);
    expect(statesOf(followed).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(saidData(followed)).toContainEqual(
      expect.objectContaining({ type: 'approval-result', callId: 'c1', approved: true }),
    );
    const done = await eventually(
      () => client.getTask({ tenant: '', id: asked.id }),
      (task) => task.status?.state === TaskState.TASK_STATE_COMPLETED,
    );
    expect(textOf(done.artifacts[0]?.parts)).toBe('Finished.');
  });

  it('cancels a task waiting for input: the request is withdrawn and the task ends canceled', async () => {
    served = await serveAsker([guardedCall(), 'never']);
    const client = await askerClient(served);
    const asked = asTask(await client.sendMessage(userText('do it')));
    const canceled = await client.cancelTask({ tenant: '', id: asked.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const runId = (asked.metadata as { hubos: { runId: string } }).hubos.runId;
    expect((await served.kernel.approvals.get(runId, 'c1'))?.status).toBe('cancelled');
    await expect(client.sendMessage(userText('approve', answerTo(asked)))).rejects.toThrow(/terminal state/);
    expect(served.model.remaining).toBe(1);
  });

  it('asks the same way for a queued run (a send that returns at once)', async () => {
    served = await serveAsker([guardedCall(), sayToolResult]);
    const client = await askerClient(served);
    const request = userText('later');
    request.configuration = {
      returnImmediately: true,
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
    };
    const started = asTask(await client.sendMessage(request));
    const asked = await eventually(
      () => client.getTask({ tenant: '', id: started.id }),
      (task) => task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED,
    );
    expect(dataOf(asked.status?.message?.parts)).toEqual([expect.objectContaining({ callId: 'c1' })]);
    const done = asTask(await client.sendMessage(userText('approve', answerTo(asked))));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.artifacts[0]?.parts)).toBe('told: {"guarded":"ok:hi"}');
  });

  it('refuses an answer to a task that is not waiting for one', async () => {
    served = await serveAsker(['Nothing to ask.']);
    const client = await askerClient(served);
    const done = asTask(await client.sendMessage(userText('hello')));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect(client.sendMessage(userText('approve', answerTo(done)))).rejects.toThrow(/terminal state/);
  });
});
