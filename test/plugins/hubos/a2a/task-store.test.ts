import { Task, TaskState } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { keyPrincipal, LOCAL, MemoryStore } from '../../../../core/index.ts';
import { PrincipalUser } from '../../../../plugins/hubos/a2a/caller.ts';
import { HubOSTaskStore } from '../../../../plugins/hubos/a2a/task-store.ts';

const as = (principal: typeof LOCAL) => new ServerCallContext({ user: new PrincipalUser(principal) });
const task = (id: string) =>
  Task.fromJSON({
    id,
    contextId: 'ctx',
    status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:00.000Z' },
  });

describe('HubOSTaskStore in the store', () => {
  it('keeps a task with its owner: the owner and admins load it, another key does not', async () => {
    const store = new MemoryStore();
    const tasks = new HubOSTaskStore(store, 'assistant');
    const ada = keyPrincipal('key-of-ada-0123456789', { id: 'ada' });
    const bob = keyPrincipal('key-of-bob-0123456789', { id: 'bob' });
    await tasks.save(task('t1'), as(ada));
    expect(await store.get('hubos:a2a:tasks', 'assistant/t1')).toMatchObject({
      owner: 'ada',
      task: { id: 't1' },
    });
    expect((await tasks.load('t1', as(ada)))?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await tasks.load('t1', as(LOCAL)))?.id).toBe('t1');
    expect(await tasks.load('t1', as(bob))).toBeUndefined();
  });

  it("reads a task stored before owners were kept (its bare JSON) as nobody's but the admins'", async () => {
    const store = new MemoryStore();
    await store.set('hubos:a2a:tasks', 'assistant/old', Task.toJSON(task('old')) as never);
    const tasks = new HubOSTaskStore(store, 'assistant');
    expect((await tasks.load('old', as(LOCAL)))?.id).toBe('old');
    expect(await tasks.load('old', as(keyPrincipal('key-of-ada-0123456789', { id: 'ada' })))).toBeUndefined();
    expect((await tasks.loadAny('old'))?.contextId).toBe('ctx');
  });
});
