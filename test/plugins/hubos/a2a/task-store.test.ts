import { Task, TaskState } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { keyPrincipal, LOCAL, MemoryStore, type RunRecord } from '../../../../core/index.ts';
import { PrincipalUser } from '../../../../plugins/hubos/a2a/caller.ts';
import { HubOSTaskStore } from '../../../../plugins/hubos/a2a/task-store.ts';
import { taskTables } from '../../../../plugins/hubos/a2a-task-records.ts';

const as = (principal: typeof LOCAL) => new ServerCallContext({ user: new PrincipalUser(principal) });
const task = (id: string, timestamp = '2026-01-01T00:00:00.000Z', state = 'TASK_STATE_COMPLETED') =>
  Task.fromJSON({ id, contextId: 'ctx', status: { state, timestamp } });
const ada = keyPrincipal('key-of-ada-0123456789', { id: 'ada' });
const bob = keyPrincipal('key-of-bob-0123456789', { id: 'bob' });

describe('HubOSTaskStore in the store', () => {
  it('keeps a task with its owner: the owner and admins load it, another key does not', async () => {
    const store = new MemoryStore();
    const tasks = new HubOSTaskStore(store, 'assistant');
    await tasks.save(task('t1'), as(ada));
    const [stored] = (await (await taskTables(store)).tasks.list()).entries;
    expect(stored).toMatchObject({
      key: 'assistant/t1',
      owner: 'ada',
      tag: 'TASK_STATE_COMPLETED',
      time: Date.parse('2026-01-01T00:00:00.000Z'),
      value: { owner: 'ada', task: { id: 't1' } },
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
    expect(await tasks.load('old', as(ada))).toBeUndefined();
    expect((await tasks.loadAny('old'))?.contextId).toBe('ctx');
  });

  it("lists one agent's tasks of the caller a page at a time from the index, newest first, ties by id", async () => {
    const store = new MemoryStore();
    const tasks = new HubOSTaskStore(store, 'assistant');
    const other = new HubOSTaskStore(store, 'other');
    for (let i = 0; i < 12; i++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(i / 3))).toISOString();
      await tasks.save(
        task(`t${String(i).padStart(2, '0')}`, at, i % 4 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_FAILED'),
        as(i % 2 ? bob : ada),
      );
      await other.save(task(`o${i}`, at), as(ada));
    }
    const list = (more: object, who = ada) =>
      tasks.list(
        {
          tenant: '',
          contextId: '',
          pageSize: 2,
          pageToken: '',
          historyLength: 0,
          includeArtifacts: false,
          ...more,
        } as never,
        as(who),
      );
    const seen: string[] = [];
    let pageToken = '';
    for (let pages = 0; pages < 10; pages++) {
      const page = await list({ pageToken });
      expect(page.totalSize).toBe(6);
      seen.push(...page.tasks.map((t) => t.id));
      pageToken = page.nextPageToken;
      if (!pageToken) break;
    }
    expect(seen).toEqual(['t10', 't08', 't06', 't04', 't02', 't00']);
    const failed = await list({ status: TaskState.TASK_STATE_FAILED, pageSize: 10 });
    expect(failed.tasks.map((t) => t.id)).toEqual(['t08', 't04', 't00']);
    expect(failed.totalSize).toBe(3);
    const admin = await list({ pageSize: 100 }, LOCAL);
    expect(admin.totalSize).toBe(12);
    expect(admin.tasks.every((t) => t.id.startsWith('t'))).toBe(true);
    await expect(list({ pageToken: 'not-a-token' })).rejects.toThrow(/pageToken/);
  });

  it('lists by state a task stored working whose run has ended elsewhere, as its run left it, and stores it so', async () => {
    const store = new MemoryStore();
    const ended = {
      id: 'run-1',
      agent: 'assistant',
      status: 'failed',
      finishedAt: '2026-01-02T00:00:00.000Z',
      error: { code: 'RUN_FAILED', message: 'gone' },
    } as unknown as RunRecord;
    const tasks = new HubOSTaskStore(store, 'assistant', {
      runRecord: async (runId) => (runId === 'run-1' ? ended : undefined),
    });
    await tasks.save(task('t1', '2026-01-01T00:00:00.000Z', 'TASK_STATE_WORKING'), as(ada));
    await tasks.link('t1', 'run-1');
    await tasks.save(task('t2', '2026-01-01T00:00:01.000Z', 'TASK_STATE_FAILED'), as(ada));
    const failed = await tasks.list(
      {
        tenant: '',
        contextId: '',
        pageSize: 10,
        pageToken: '',
        status: TaskState.TASK_STATE_FAILED,
      } as never,
      as(ada),
    );
    // In the order they were stored in when read (t1 settled on the way).
    expect(failed.tasks.map((t) => t.id)).toEqual(['t2', 't1']);
    expect(failed.tasks[1]?.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const { tasks: table } = await taskTables(store);
    expect(await table.count({ tag: 'TASK_STATE_FAILED' })).toBe(2);
    expect((await table.list({ limit: 1 })).entries[0]?.time).toBe(Date.parse('2026-01-02T00:00:00.000Z'));
  });

  it('pages on from where a task stands in the index, though it reads as changed since it was stored', async () => {
    const store = new MemoryStore();
    // Every question was answered elsewhere: an input-required task reads as working, stamped now.
    const tasks = new HubOSTaskStore(store, 'assistant', { pendingOf: async () => [] });
    for (let i = 0; i < 5; i++) {
      const asking = Task.fromJSON({
        id: `t${i}`,
        contextId: 'ctx',
        status: {
          state: 'TASK_STATE_INPUT_REQUIRED',
          timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        },
        metadata: { hubos: { pending: ['c1'] } },
      });
      await tasks.save(asking, as(ada));
      await tasks.link(`t${i}`, `run-${i}`);
    }
    const seen: string[] = [];
    let pageToken = '';
    for (let pages = 0; pages < 6; pages++) {
      const page = await tasks.list(
        {
          tenant: '',
          contextId: '',
          pageSize: 2,
          pageToken,
          historyLength: 0,
          includeArtifacts: false,
        } as never,
        as(ada),
      );
      seen.push(...page.tasks.map((listed) => listed.id));
      pageToken = page.nextPageToken;
      if (!pageToken) break;
    }
    expect(seen).toEqual(['t4', 't3', 't2', 't1', 't0']);
  });

  it('finds no task under an id no task can have, rather than failing', async () => {
    const tasks = new HubOSTaskStore(new MemoryStore(), 'assistant');
    for (const id of ['x'.repeat(600), 'a\u0000b', 'a\uD800'])
      for (const read of [tasks.load(id, as(ada)), tasks.loadAny(id), tasks.runOf(id)])
        await expect(read).resolves.toBeUndefined();
  });
});
