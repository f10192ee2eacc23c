// A2A over several instances, with the official A2A client: a non-blocking send on A is queued and
// run by whichever instance has room; B reads it, resubscribes to it and cancels it; and a task
// whose instance is killed is resumed by another instance and completes, never `working` for ever.
import { randomUUID } from 'node:crypto';
import {
  type Message,
  Role,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRun } from './helpers/http.ts';
import { Cluster, printed, type ServeProcess } from './helpers/instances.ts';
import { pollUntil } from './helpers/poll.ts';

const cluster = new Cluster();
let a: ServeProcess;
let b: ServeProcess;

beforeAll(async () => {
  [a, b] = await Promise.all([cluster.start({ name: 'A' }), cluster.start({ name: 'B' })]);
}, 60_000);

afterAll(() => cluster.cleanup(), 60_000);

const client = (on: ServeProcess, agent: string): Promise<Client> =>
  new ClientFactory().createFromUrl(`${on.url}/a2a/${agent}/`);

/** A non-blocking send: the server answers at once with the task, which a queue then runs. */
function sendNow(text: string): SendMessageRequest {
  const message: Message = {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return {
    tenant: '',
    message,
    configuration: {
      returnImmediately: true,
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
    },
    metadata: undefined,
  };
}

const asTask = (answer: unknown): Task => {
  if (!answer || typeof answer !== 'object' || !('status' in answer)) throw new Error('expected a task');
  return answer as Task;
};

const runIdOf = (task: Task): string | undefined =>
  (task.metadata as { hubos?: { runId?: string } } | undefined)?.hubos?.runId;

/** The run serving a task: its metadata names it once the task is working. */
function runOfTask(agentClient: Client, taskId: string): Promise<string> {
  return pollUntil(
    `task ${taskId} to name its run`,
    async () => runIdOf(await agentClient.getTask({ tenant: '', id: taskId })),
    (runId) => runId !== undefined,
    { timeoutMs: 15_000, intervalMs: 50 },
  ) as Promise<string>;
}

describe('A2A across instances', () => {
  it('reads on B a task sent to A without waiting, and ends it completed', async () => {
    const onA = await client(a, 'quick');
    const onB = await client(b, 'quick');
    const started = asTask(await onA.sendMessage(sendNow('hello')));
    const done = await pollUntil(
      'the task to complete, read on B',
      () => onB.getTask({ tenant: '', id: started.id }),
      (task) => task.status?.state === TaskState.TASK_STATE_COMPLETED,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(done.artifacts.flatMap((artifact) => artifact.parts).map((part) => part.content?.value)).toContain(
      'done: hello',
    );
  });

  it('resubscribes on B to a task that runs elsewhere, and cancels it through B', async () => {
    const onA = await client(a, 'waiter');
    const onB = await client(b, 'waiter');
    const started = asTask(await onA.sendMessage(sendNow('wait for me')));
    const runId = await runOfTask(onA, started.id);
    const record = await pollUntil(
      'the run to start',
      () => getRun(b.url, runId),
      (run) => run.status === 'running',
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    const runner = cluster.byInstanceId(record.instance as string)!;
    await printed(runner, `pause-start ${runId}`);

    const resubscribed = onB.resubscribeTask({ tenant: '', id: started.id });
    const head = await resubscribed.next();
    expect(head.value?.payload?.$case).toBe('task');
    await onB.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    const rest: StreamResponse[] = [];
    for await (const event of resubscribed) rest.push(event);
    const last = rest.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // The run itself stopped where it ran.
    await printed(runner, `pause-stopped ${runId}`);
    expect((await getRun(a.url, runId)).status).toBe('cancelled');
    const task = await onA.getTask({ tenant: '', id: started.id });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('goes on when the instance running its task is killed: another instance resumes it to the end', async () => {
    const c = await cluster.start({ name: 'C' });
    const onC = await client(c, 'waiter');
    const started = asTask(await onC.sendMessage(sendNow('wait forever')));
    const runId = await runOfTask(onC, started.id);
    const running = await pollUntil(
      'the run to start',
      () => getRun(c.url, runId),
      (run) => run.status === 'running',
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    const runner = cluster.byInstanceId(running.instance as string)!;
    // Killed inside its tool call: the call's outcome is unknown to the instance that resumes it.
    await printed(runner, `pause-start ${runId}`);
    const survivor = cluster.live.find((instance) => instance !== runner)!;
    await runner.kill();

    const onSurvivor = await client(survivor, 'waiter');
    const task = await pollUntil(
      'the task to end after its instance died',
      () => onSurvivor.getTask({ tenant: '', id: started.id }),
      (t) =>
        t.status?.state !== TaskState.TASK_STATE_WORKING &&
        t.status?.state !== TaskState.TASK_STATE_SUBMITTED,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const text = (task.status?.message?.parts ?? []).map((part) => String(part.content?.value)).join('');
    expect(text).toContain('may or may not have taken effect');
    expect(await getRun(survivor.url, runId)).toMatchObject({ status: 'completed', resumes: 1 });
    // The tool that may have acted was not run again anywhere.
    for (const instance of cluster.live) expect(instance.output.stdout).not.toContain(`pause-start ${runId}`);
  });
});
