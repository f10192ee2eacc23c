import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../core/index.ts';
import { serveAsker } from './asker.ts';
import { eventually, type Served, serve, textOf, userText } from './helpers.ts';

let dir: string;
const open: Served[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hubos-a2a-'));
});
afterEach(async () => {
  for (const served of open.splice(0)) await served.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A HubOS whose kernel keeps its data in the SQLite file of this test. */
async function start(script: Parameters<typeof serve>[0], shutdownTimeoutMs?: number): Promise<Served> {
  const served = await serve(
    script,
    { shutdownTimeoutMs },
    { store: new SqliteStore(join(dir, 'hubos.db')) },
  );
  open.push(served);
  return served;
}

async function stop(served: Served): Promise<void> {
  open.splice(open.indexOf(served), 1);
  await served.close();
}

describe('A2A tasks in the HubOS store', () => {
  it('survive a restart: a task made by one server is returned by the next one on the same file', async () => {
    const first = await start(['Remembered.']);
    const client1 = await new ClientFactory().createFromUrl(`${first.url}/a2a/helper/`);
    const made = await client1.sendMessage(userText('remember this'));
    const taskId = 'id' in made ? made.id : '';
    await stop(first);

    const second = await start([]);
    const client2 = await new ClientFactory().createFromUrl(`${second.url}/a2a/helper/`);
    const task = await client2.getTask({ tenant: '', id: taskId });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.artifacts[0]?.parts)).toBe('Remembered.');
    expect(textOf(task.history[0]?.parts)).toBe('remember this');
    const listed = await client2.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((t) => t.id)).toEqual([taskId]);
    // Another agent's tasks are its own.
    const quiet = await new ClientFactory().createFromUrl(`${second.url}/a2a/quiet/`);
    await expect(quiet.getTask({ tenant: '', id: taskId })).rejects.toThrow(/not found/i);
  });

  it('ends a task canceled when the server shuts down while it runs', async () => {
    const first = await start([{ toolCalls: [{ name: 'slow' }] }, 'never'], 50);
    const client1 = await new ClientFactory().createFromUrl(`${first.url}/a2a/helper/`);
    const request = userText('slow work');
    request.configuration = {
      returnImmediately: true,
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
    };
    const started = await client1.sendMessage(request);
    const taskId = 'id' in started ? started.id : '';
    await eventually(
      async () => (await client1.getTask({ tenant: '', id: taskId })).history.length,
      (length) => length >= 2,
    );
    await stop(first); // drains for 50 ms, then cancels the run

    const second = await start([]);
    const client2 = await new ClientFactory().createFromUrl(`${second.url}/a2a/helper/`);
    const task = await client2.getTask({ tenant: '', id: taskId });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('ends canceled a task left waiting for input when the server shut down', async () => {
    const served = await serveAsker(
      [{ toolCalls: [{ name: 'guarded', input: { text: 'x' }, id: 'c1' }] }, 'never'],
      { shutdownTimeoutMs: 50 },
      { store: new SqliteStore(join(dir, 'hubos.db')) },
    );
    open.push(served);
    const client1 = await new ClientFactory().createFromUrl(`${served.url}/a2a/asker/`);
    const asked = await client1.sendMessage(userText('do it'));
    expect('id' in asked && asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await stop(served); // drains for 50 ms, then cancels the run waiting for the answer

    const next = await serveAsker([], {}, { store: new SqliteStore(join(dir, 'hubos.db')) });
    open.push(next);
    const client2 = await new ClientFactory().createFromUrl(`${next.url}/a2a/asker/`);
    const task = await client2.getTask({ tenant: '', id: 'id' in asked ? asked.id : '' });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});
