// Every run has a record from its first moment, its events can be followed (and resumed) by id,
// queued runs respect maxConcurrentRuns, and a run whose instance died is marked interrupted.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRecord } from '../../../core/agent/approvals.ts';
import { INSTANCES_NAMESPACE } from '../../../core/instance.ts';
import { openRunTable } from '../../../core/runs/open-run-table.ts';
import type { RunRecord } from '../../../core/runs/run-record.ts';
import { SqliteStore } from '../../../core/store/sqlite.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';
import { type Served, serveHelper, testTools } from './helpers.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function serve(script: ScriptStep[], options = {}): Promise<Served> {
  const served = await serveHelper(script, options);
  closers.push(served.close);
  return served;
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

async function record(url: string, id: string): Promise<RunRecord> {
  const response = await fetch(`${url}/api/runs/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as RunRecord;
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** SSE frames of a response, parsed. */
async function frames(response: Response): Promise<{ id?: string; event: string; data: unknown }[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const fields = Object.fromEntries(
        block
          .split('\n')
          .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
      );
      return {
        ...(fields.id ? { id: fields.id } : {}),
        event: String(fields.event),
        data: JSON.parse(String(fields.data)),
      };
    });
}

/** A tool call's approval request still waiting, as the store keeps it. */
function pendingApproval(runId: string, now: string) {
  return {
    runId,
    agent: 'helper',
    principal: 'local',
    step: 1,
    callId: 'call-1',
    tool: 'echo',
    input: { text: 'x' },
    permissions: [],
    requestedAt: now,
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
    status: 'pending',
  };
}

describe('durable run records', () => {
  it('gives a JSON run a record from its first moment, readable and cancellable by id', async () => {
    const served = await serve([{ toolCalls: [{ name: 'wait' }] }, 'never']);
    const answer = post(`${served.url}/api/agents/helper/run`, { input: 'wait' });
    const table = await openRunTable(served.kernel.store);
    const running = await until(
      () => table.list({ status: 'running', limit: 10 }),
      (runs) => runs.length === 1,
    );
    expect(running).toHaveLength(1);
    const id = running[0]!.id;
    const live = await record(served.url, id!);
    expect(live).toMatchObject({ status: 'running', agent: 'helper', owner: 'local', via: 'rest' });
    expect(live.instance).toBe(served.kernel.instance.id);
    const cancelled = await post(`${served.url}/api/runs/${id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as RunRecord).status).toBe('cancelled');
    await answer;
    const stored = await table.get(id);
    expect(stored?.status).toBe('cancelled');
    expect(await table.list({ status: 'running', limit: 10 })).toEqual([]);
  });

  it('counts finished steps in the record as the run goes', async () => {
    const served = await serve([{ toolCalls: [{ name: 'echo', input: { text: 'a' } }] }, 'done']);
    const response = await post(`${served.url}/api/agents/helper/run`, { input: 'go' });
    const result = (await response.json()) as { runId: string };
    const done = await record(served.url, result.runId);
    expect(done).toMatchObject({ status: 'completed', steps: 2 });
    expect(done.finishedAt).toBeDefined();
  });
});

describe('GET /api/runs/:id/events', () => {
  it('streams a run by id, numbered, and resumes after Last-Event-ID', async () => {
    const served = await serve([{ text: 'one two three', delayMs: 300 }]);
    const started = await post(`${served.url}/api/agents/helper/run?async=true`, { input: 'go' });
    const { runId, events } = (await started.json()) as { runId: string; events: string };
    expect(events).toBe(`/api/runs/${runId}/events`);
    const all = await frames(await fetch(`${served.url}${events}`));
    expect(all[0]).toMatchObject({ id: '1', event: 'run-start' });
    expect(all.at(-1)).toMatchObject({ event: 'run-end', data: { id: runId, status: 'completed' } });
    const numbered = all.filter((frame) => frame.id);
    expect(numbered.map((frame) => Number(frame.id))).toEqual(numbered.map((_, i) => i + 1));

    const resumed = await frames(
      await fetch(`${served.url}${events}`, { headers: { 'last-event-id': numbered[2]!.id! } }),
    );
    expect(resumed.filter((frame) => frame.id).map((frame) => frame.id)).toEqual(
      numbered.slice(3).map((frame) => frame.id),
    );
    expect(resumed.at(-1)!.event).toBe('run-end');
  });

  it("keeps an ended run's events for runs.eventsTtlMs, then answers with its end alone", async () => {
    const kernel = await bootKernel({
      plugins: [testTools],
      config: {
        agents: { helper: { model: new ScriptedModel(['hi']), tools: ['*'] } },
        runs: { eventsTtlMs: 1_000 },
      },
    });
    const hubos = new HubOS({ kernel, name: 'test', port: 0, rateLimit: false });
    hubos.registerAgent('helper', kernel.agent('helper'));
    const url = await hubos.serve();
    closers.push(async () => {
      await hubos.close();
      await kernel.close();
    });
    const response = await post(`${url}/api/agents/helper/run`, { input: 'go' });
    const { runId } = (await response.json()) as { runId: string };
    const kept = await frames(await fetch(`${url}/api/runs/${runId}/events`));
    expect(kept[0]).toMatchObject({ id: '1', event: 'run-start' });
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    const gone = await frames(await fetch(`${url}/api/runs/${runId}/events`));
    expect(gone).toEqual([
      { event: 'run-end', data: expect.objectContaining({ id: runId, status: 'completed' }) },
    ]);
  });

  it('answers another key 404, and a run whose events are gone with its end alone', async () => {
    const served = await serve(['hi'], {
      apiKeys: [
        { key: 'a'.repeat(32), id: 'alice' },
        { key: 'b'.repeat(32), id: 'bob' },
      ],
    });
    const alice = { authorization: `Bearer ${'a'.repeat(32)}` };
    const bob = { authorization: `Bearer ${'b'.repeat(32)}` };
    const response = await post(`${served.url}/api/agents/helper/run`, { input: 'go' }, alice);
    const { runId } = (await response.json()) as { runId: string };
    expect((await fetch(`${served.url}/api/runs/${runId}/events`, { headers: bob })).status).toBe(404);
    // A record written by a server that is gone: its events were never on this bus.
    const old: RunRecord = {
      id: 'old-run',
      agent: 'helper',
      owner: 'alice',
      status: 'completed',
      createdAt: new Date().toISOString(),
    };
    await (await openRunTable(served.kernel.store)).insert(old);
    const ended = await frames(await fetch(`${served.url}/api/runs/old-run/events`, { headers: alice }));
    expect(ended).toEqual([{ event: 'run-end', data: { ...old, steps: 0, via: 'rest' } }]);
  });
});

describe('queued runs', () => {
  it('runs at most maxConcurrentRuns at once; the others wait queued, and can be cancelled there', async () => {
    const served = await serve([{ toolCalls: [{ name: 'wait' }] }, 'second'], { maxConcurrentRuns: 1 });
    const first = (await (
      await post(`${served.url}/api/agents/helper/run?async=true`, { input: 'a' })
    ).json()) as {
      runId: string;
    };
    const second = (await (
      await post(`${served.url}/api/agents/helper/run?async=true`, { input: 'b' })
    ).json()) as {
      runId: string;
      status: string;
    };
    expect(second.status).toBe('queued');
    await until(
      () => record(served.url, first.runId),
      (r) => r.status === 'running',
    );
    expect((await record(served.url, second.runId)).status).toBe('queued');
    const third = (await (
      await post(`${served.url}/api/agents/helper/run?async=true`, { input: 'c' })
    ).json()) as {
      runId: string;
    };
    const cancelled = await post(`${served.url}/api/runs/${third.runId}/cancel`, {});
    expect(((await cancelled.json()) as RunRecord).status).toBe('cancelled');

    await post(`${served.url}/api/runs/${first.runId}/cancel`, {});
    const done = await until(
      () => record(served.url, second.runId),
      (r) => r.status === 'completed',
    );
    expect(done.result?.text).toBe('second');
    expect((await record(served.url, third.runId)).status).toBe('cancelled');
  });
});

describe('a run whose instance died', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is marked interrupted when a server starts on the same store, its queued runs run', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hubos-durable-'));
    const path = join(dir, 'hubos.db');
    // What a killed process leaves: a heartbeat (of a pid that has exited), a running and a queued run.
    const dead = spawnSync(process.execPath, ['-e', 'process.pid']).pid!;
    const store = new SqliteStore(path);
    const ghost = `${(await import('node:os')).hostname().slice(0, 32)}-${dead}-dead`;
    await store.set(INSTANCES_NAMESPACE, ghost, {
      id: ghost,
      host: (await import('node:os')).hostname(),
      pid: dead,
      startedAt: new Date().toISOString(),
      expiresAt: Date.now() + 60_000,
    });
    const now = new Date().toISOString();
    const running: RunRecord = {
      id: 'r-running',
      agent: 'helper',
      owner: 'local',
      status: 'running',
      instance: ghost,
      createdAt: now,
    };
    const queued: RunRecord = {
      id: 'r-queued',
      agent: 'helper',
      owner: 'local',
      status: 'queued',
      instance: ghost,
      createdAt: now,
    };
    for (const run of [running, queued]) {
      // As HubOS kept runs before they had tables: key/value records, moved into tables at start.
      await store.set('hubos:runs:active', run.id, run as never);
    }
    await store.set('hubos:runs:queued', 'r-queued', { input: 'go on' });
    // The interrupted run was waiting for a human: its approval will never be acted on.
    await store.set('approvals', 'r-running/call-1', pendingApproval('r-running', now));
    await store.close();

    const model = new ScriptedModel(['picked up']);
    const kernel = await bootKernel({
      store: undefined,
      plugins: [testTools],
      config: { store: { path }, agents: { helper: { model, tools: ['*'] } } },
    });
    const hubos = new HubOS({ kernel, port: 0, rateLimit: false });
    hubos.registerAgent('helper', kernel.agent('helper'));
    const url = await hubos.serve();
    closers.push(async () => {
      await hubos.close();
      await kernel.close();
    });
    const interrupted = await record(url, 'r-running');
    expect(interrupted.status).toBe('interrupted');
    expect(interrupted.error).toMatchObject({ code: 'RUN_INTERRUPTED' });
    expect(interrupted.error!.message).toContain(ghost);
    await until(
      () => kernel.approvals.get('r-running', 'call-1'),
      (approval) => approval?.status === 'cancelled',
    );
    expect(await kernel.approvals.get('r-running', 'call-1')).toMatchObject({
      status: 'cancelled',
      reason: interrupted.error!.message,
    });
    const picked = await until(
      () => record(url, 'r-queued'),
      (r) => r.status === 'completed',
    );
    expect(picked).toMatchObject({ status: 'completed', instance: kernel.instance.id });
    expect(picked.result?.text).toBe('picked up');
    expect(await kernel.store.list('hubos:runs:active')).toEqual([]);
    expect(await kernel.store.list('hubos:runs:queued')).toEqual([]);
  });
});

describe('a decision or a cancel reaching a run whose instance died', () => {
  it('is answered with the run as it really stands, at once, and every record agrees', async () => {
    const served = await serve([]);
    const { kernel } = served;
    // A process on this host that has exited, whose heartbeat is still fresh: it died just now.
    const dead = spawnSync(process.execPath, ['-e', 'process.pid']).pid!;
    const host = (await import('node:os')).hostname();
    const ghost = `${host.slice(0, 32)}-${dead}-gone`;
    await kernel.store.set(INSTANCES_NAMESPACE, ghost, {
      id: ghost,
      host,
      pid: dead,
      startedAt: new Date().toISOString(),
      expiresAt: Date.now() + 60_000,
    });
    const table = await openRunTable(kernel.store);
    const now = new Date().toISOString();
    for (const id of ['r-asking', 'r-plain'])
      await table.insert({
        id,
        agent: 'helper',
        owner: 'local',
        status: 'running',
        via: 'rest',
        instance: ghost,
        createdAt: now,
      });
    await (await kernel.approvals.table()).put(pendingApproval('r-asking', now) as ApprovalRecord);

    const started = Date.now();
    const decided = await post(`${served.url}/api/runs/r-asking/approvals/call-1`, { approved: true });
    expect(decided.status).toBe(409);
    const answer = (await decided.json()) as {
      error: { code: string; message: string };
      approval: { status: string };
    };
    expect(answer.error.code).toBe('RUN_NOT_RUNNING');
    expect(answer.error.message).toContain('interrupted');
    expect(answer.approval.status).toBe('cancelled');
    expect(await kernel.approvals.get('r-asking', 'call-1')).toMatchObject({ status: 'cancelled' });
    expect(await record(served.url, 'r-asking')).toMatchObject({
      status: 'interrupted',
      error: { code: 'RUN_INTERRUPTED' },
    });

    const cancelled = await post(`${served.url}/api/runs/r-plain/cancel`, {});
    expect(cancelled.status).toBe(409);
    expect(((await cancelled.json()) as { error: { code: string } }).error.code).toBe('RUN_ENDED');
    expect(await record(served.url, 'r-plain')).toMatchObject({ status: 'interrupted' });
    // At once: no wait for a lease, nor for the cancel's confirmation.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
