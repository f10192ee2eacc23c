// Runs are forgotten: retention deletes ended runs past the config's age or count, a batch at a
// time, never a running one, and with them idle sessions, A2A tasks over and idle and decided approvals;
// an admin erases everything one principal owns.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keepResult, readKept } from '../../../core/context/kept-results.ts';
import { MemoryStore, type RunRecord } from '../../../core/index.ts';
import { openRunTable, openSessionTable, pruneRuns } from '../../../core/internal.ts';
import { taskTables } from '../../../plugins/hubos/a2a-task-records.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import hubosPlugin from '../../../plugins/hubos/index.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';
import { approvalAt } from '../../store/approvals-contract.ts';
import { runAt } from '../../store/run-table-contract.ts';
import { buildHelper, type Built as Served, testTools } from './helpers.ts';

const DAY = 86_400_000;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const ended = (time: number, more: Partial<RunRecord> = {}) =>
  runAt(time, { status: 'completed', finishedAt: new Date(time).toISOString(), ...more });

describe('pruneRuns', () => {
  it('deletes ended runs older than maxAgeDays, oldest first, never a running one', async () => {
    const table = await openRunTable(new MemoryStore());
    const now = Date.now();
    const old = [ended(now - 10 * DAY), ended(now - 9 * DAY)];
    const running = runAt(now - 20 * DAY, { status: 'running', instance: 'i-1' });
    const recent = ended(now - DAY);
    for (const run of [...old, running, recent]) await table.insert(run);
    await table.addSteps([
      {
        runId: old[0]!.id,
        seq: 1,
        kind: 'model',
        name: 'm',
        step: 1,
        startedAt: new Date().toISOString(),
        finishedAt: new Date().toISOString(),
        durationMs: 0,
        status: 'ok',
      },
    ]);
    expect(await pruneRuns(table, { maxAgeDays: 7 }, now)).toBe(2);
    const left = (await table.list({ limit: 10 })).map((run) => run.id);
    expect(left).toEqual([recent.id, running.id]);
    expect(await table.steps(old[0]!.id)).toEqual([]);
    expect(await pruneRuns(table, { maxAgeDays: 7 }, now)).toBe(0);
  });

  it('keeps the newest maxRuns, a batch of 500 at a time', async () => {
    const table = await openRunTable(new MemoryStore());
    const start = Date.now() - 10_000;
    for (let i = 0; i < 1_210; i++) await table.insert(ended(start + i));
    expect(await pruneRuns(table, { maxRuns: 10 })).toBe(500);
    expect(await pruneRuns(table, { maxRuns: 10 })).toBe(500);
    expect(await pruneRuns(table, { maxRuns: 10 })).toBe(200);
    expect(await pruneRuns(table, { maxRuns: 10 })).toBe(0);
    const left = await table.list({ limit: 200 });
    expect(left).toHaveLength(10);
    expect(left.at(-1)!.createdAt).toBe(new Date(start + 1_200).toISOString());
  });
});

describe('runs.retention in the config', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('bounds the store when a server starts on it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hubos-retention-'));
    const kernel = await bootKernel({
      store: undefined,
      plugins: [testTools],
      config: {
        store: { path: join(dir, 'hubos.db') },
        runs: { retention: { maxRuns: 3 } },
        agents: { helper: { model: new ScriptedModel([]), tools: ['*'] } },
      },
    });
    const table = await openRunTable(kernel.store);
    const start = Date.now() - 60_000;
    for (let i = 0; i < 8; i++) await table.insert(ended(start + i * 10));
    const hubos = new HubOS({ kernel, port: 0, rateLimit: false });
    hubos.registerAgent('helper', kernel.agent('helper'));
    await hubos.serve();
    closers.push(async () => {
      await hubos.close();
      await kernel.close();
    });
    const left = await table.list({ limit: 50 });
    expect(left.map((run) => run.createdAt)).toEqual(
      [7, 6, 5].map((i) => new Date(start + i * 10).toISOString()),
    );
  });

  it("prunes, at the engine's tick, idle sessions and A2A tasks and decided approvals past their retention", async () => {
    dir = mkdtempSync(join(tmpdir(), 'hubos-retention-'));
    const kernel = await bootKernel({
      store: undefined,
      // The hubos plugin owns the `a2a` key, and builds the server.
      plugins: [testTools, hubosPlugin({ port: 0, rateLimit: false })],
      config: {
        store: { path: join(dir, 'hubos.db') },
        runs: { retention: { maxAgeDays: 30 } },
        sessions: { retention: { maxAgeDays: 7 } },
        a2a: { retention: { maxAgeDays: 14 } },
        agents: { helper: { model: new ScriptedModel([]), tools: ['*'] } },
      },
    });
    const store = kernel.store;
    const now = Date.now();
    const sessions = await openSessionTable(store);
    const said = [{ role: 'user' as const, content: 'hi' }];
    await sessions.append('helper', 'idle', 'local', said, { at: now - 8 * DAY });
    await sessions.append('helper', 'recent', 'local', said, { at: now - 6 * DAY });
    // An agent no longer in the config: its idle sessions go all the same.
    await sessions.append('retired', 'idle', 'local', said, { at: now - 8 * DAY });
    const task = (at: number, state = 'TASK_STATE_COMPLETED') => ({
      owner: 'local',
      task: { status: { state, timestamp: new Date(at).toISOString() } },
    });
    const { tasks } = await taskTables(store);
    await tasks.put('helper/idle', task(now - 15 * DAY));
    await tasks.put('helper/recent', task(now - 13 * DAY));
    // As idle, but its run still works: kept.
    await tasks.put('helper/working', task(now - 15 * DAY, 'TASK_STATE_WORKING'));
    const approvals = await kernel.approvals.table();
    const decided = (runId: string, at: number) =>
      approvalAt(at, runId, 'c1', { status: 'approved', decidedAt: new Date(at).toISOString() });
    await approvals.put(decided('run-old', now - 31 * DAY));
    await approvals.put(decided('run-new', now - 29 * DAY));
    await approvals.put(approvalAt(now - 40 * DAY, 'run-waiting', 'c1'));
    // Tool results runs kept, filed under their run's start: the older run's go with it.
    const keep = (runId: string) =>
      keepResult(store, { principal: 'local', runId, agent: 'helper', tool: 't', callId: 'c1', text: 'x' });
    const oldResult = await keep(runAt(now - 31 * DAY).id);
    const newResult = await keep(runAt(now - 29 * DAY).id);
    closers.push(() => kernel.close());
    await kernel.service('hubos').serve();
    expect((await sessions.listOwned('local', 10)).map((s) => `${s.agent}/${s.sessionId}`)).toEqual([
      'helper/recent',
    ]);
    expect((await tasks.list()).entries.map((e) => e.key).sort()).toEqual([
      'helper/recent',
      'helper/working',
    ]);
    const left = await kernel.approvals.page({ all: true, limit: 10 });
    expect(left.approvals.map((approval) => approval.runId).sort()).toEqual(['run-new', 'run-waiting']);
    await expect(readKept(store, oldResult, 'local')).rejects.toThrow(/no kept result/);
    expect((await readKept(store, newResult, 'local')).text).toBe('x');
  });

  it('refuses a retention that makes no sense, naming the key', async () => {
    await expect(bootKernel({ config: { runs: { retention: { maxRuns: 0 } } } as never })).rejects.toThrow(
      '"runs.retention.maxRuns" must be >= 1, got integer 0',
    );
    await expect(
      bootKernel({ config: { runs: { retention: { keepForever: true } } } as never }),
    ).rejects.toThrow(/keepForever/);
    await expect(
      bootKernel({ config: { sessions: { retention: { maxAgeDays: 0 } } } as never }),
    ).rejects.toThrow('"sessions.retention.maxAgeDays" must be > 0');
    await expect(
      bootKernel({ plugins: [hubosPlugin()], config: { a2a: { retention: { maxDays: 3 } } } as never }),
    ).rejects.toThrow(/maxDays/);
  });
});

describe('DELETE /api/owners/:id', () => {
  const ALICE = 'a'.repeat(32);
  const BOB = 'b'.repeat(32);
  const ROOT = 'c'.repeat(32);
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });

  async function serve(): Promise<Served> {
    const served = await buildHelper(['one', 'two', 'three'], {
      apiKeys: [
        { key: ALICE, id: 'alice' },
        { key: BOB, id: 'bob' },
        { key: ROOT, id: 'root', admin: true },
      ],
    });
    closers.push(served.close);
    return served;
  }

  const request = async (served: Served, method: string, path: string, key: string, body?: unknown) => {
    const response = await served.hubos.app.request(path, {
      method,
      headers: { ...auth(key), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  it("erases one principal's runs, steps and sessions, and nobody else's", async () => {
    const served = await serve();
    const a1 = await request(served, 'POST', '/api/agents/helper/run', ALICE, {
      input: 'hi',
      sessionId: 's1',
    });
    await request(served, 'POST', '/api/agents/helper/run', ALICE, { input: 'again', sessionId: 's1' });
    const b1 = await request(served, 'POST', '/api/agents/helper/run', BOB, {
      input: 'bob',
      sessionId: 's1',
    });
    expect(a1.status).toBe(200);
    expect((await served.kernel.sessions.load('helper', 'alice~s1')).length).toBe(4);
    // An approval of a run still asking, and one of a run the table never held; an A2A task.
    const approvals = await served.kernel.approvals.table();
    await approvals.put(approvalAt(Date.now(), a1.body.runId, 'c1'));
    await approvals.put(approvalAt(Date.now(), 'run-elsewhere', 'c1'));
    await approvals.put(approvalAt(Date.now(), b1.body.runId, 'c1', { principal: 'bob' }));
    const { tasks } = await taskTables(served.kernel.store);
    await tasks.put('helper/t1', { owner: 'alice', task: {} });
    await tasks.put('helper/t2', { owner: 'bob', task: {} });

    expect((await request(served, 'DELETE', '/api/owners/alice', ALICE)).status).toBe(403);
    const erased = await request(served, 'DELETE', '/api/owners/alice', ROOT);
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({
      owner: 'alice',
      runs: 2,
      sessions: 1,
      sessionMessages: 4,
      approvals: 2,
      tasks: 1,
      activeRuns: 0,
    });
    expect((await served.kernel.approvals.page({ all: true, limit: 10 })).approvals).toMatchObject([
      { principal: 'bob' },
    ]);
    expect((await tasks.list()).entries.map((e) => e.key)).toEqual(['helper/t2']);
    expect((await request(served, 'GET', '/api/runs', ALICE)).body.runs).toEqual([]);
    expect((await request(served, 'GET', `/api/runs/${a1.body.runId}/steps`, ROOT)).status).toBe(404);
    expect(await served.kernel.sessions.load('helper', 'alice~s1')).toEqual([]);
    // Bob's run and session are untouched.
    expect((await request(served, 'GET', `/api/runs/${b1.body.runId}`, BOB)).status).toBe(200);
    expect((await served.kernel.sessions.load('helper', 'bob~s1')).length).toBe(2);

    const bad = await request(served, 'DELETE', `/api/owners/${encodeURIComponent('../x y')}`, ROOT);
    expect(bad.status).toBe(400);
    // A key's id may be an e-mail address: erasable like any other.
    const mail = await request(
      served,
      'DELETE',
      `/api/owners/${encodeURIComponent('ada@example.com')}`,
      ROOT,
    );
    expect(mail).toMatchObject({ status: 200, body: { owner: 'ada@example.com', runs: 0 } });
  });
});
