import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SqliteApprovalTable } from '../../core/approvals/sqlite-approval-table.ts';
import {
  type ApprovalRequest,
  Approvals,
  type HubosError,
  type Kernel,
  MemoryStore,
  SqliteStore,
  type Store,
} from '../../core/index.ts';
import { openApprovalTable } from '../../core/internal.ts';
import { bootAgent, deferred } from '../agent/helpers.ts';
import { expectHubosRejection } from '../core/helpers.ts';
import { permittedTool } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'hubos-approvals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `store-${++files}.db`);

const stores: Store[] = [];
const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
  await Promise.all(stores.splice(0).map((store) => store.close()));
});
function sqlite(path: string): SqliteStore {
  const store = new SqliteStore(path);
  stores.push(store);
  return store;
}

const request = (callId = 'c1'): ApprovalRequest => ({
  runId: 'run-1',
  agent: 'assistant',
  step: 1,
  callId,
  tool: 'write',
  input: { path: 'a' },
  permissions: ['fs:write'],
  rule: 'fs:write',
});

describe('Approvals in the store', () => {
  it('stores a request before announcing it, so another process sharing the store sees it', async () => {
    const path = freshPath();
    const here = new Approvals(sqlite(path), { pollMs: 0 });
    const elsewhere = new Approvals(sqlite(path), { pollMs: 0 });
    const controller = new AbortController();
    const opened = deferred();
    const waiting = here.request(request(), {
      signal: controller.signal,
      timeoutMs: 60_000,
      onOpen: () => opened.resolve(),
    });
    await opened.promise;
    const [listed] = await elsewhere.list('run-1');
    expect(listed).toMatchObject({ callId: 'c1', status: 'pending', tool: 'write', input: { path: 'a' } });
    expect(here.isWaiting('run-1', 'c1')).toBe(true);
    expect(elsewhere.isWaiting('run-1', 'c1')).toBe(false);
    controller.abort();
    expect(await waiting).toMatchObject({ status: 'cancelled' });
    expect(await elsewhere.list('run-1')).toEqual([]);
    expect(await elsewhere.list('run-1', { all: true })).toMatchObject([{ status: 'cancelled' }]);
  });

  it('records a decision nobody here waits for (409-style), and a process still waiting applies it', async () => {
    const path = freshPath();
    const here = new Approvals(sqlite(path), { pollMs: 10 });
    const elsewhere = new Approvals(sqlite(path), { pollMs: 10 });
    const opened = deferred();
    const waiting = here.request(request(), {
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      onOpen: () => opened.resolve(),
    });
    await opened.promise;
    const error: HubosError = await expectHubosRejection(
      elsewhere.decide('run-1', 'c1', { approved: false, reason: 'from afar' }),
      'RUN_NOT_RUNNING',
    );
    expect(error.message).toBe(
      'run "run-1" is no longer running in this process; the decision is recorded (a process still running it applies it)',
    );
    expect(error.details.approval).toMatchObject({ status: 'denied', reason: 'from afar' });
    expect(await waiting).toMatchObject({ status: 'denied', reason: 'from afar' });
    await expectHubosRejection(elsewhere.decide('run-1', 'c1', { approved: true }), 'APPROVAL_DECIDED');
  });

  it('marks an expired stored request expired instead of recording a decision', async () => {
    const store = new MemoryStore();
    await store.set('approvals', 'run-1/c1', {
      ...request(),
      status: 'pending',
      requestedAt: new Date(Date.now() - 2_000).toISOString(),
      expiresAt: new Date(Date.now() - 1_000).toISOString(),
    } as never);
    const approvals = new Approvals(store);
    await expectHubosRejection(approvals.decide('run-1', 'c1', { approved: true }), 'APPROVAL_DECIDED');
    expect(await approvals.get('run-1', 'c1')).toMatchObject({ status: 'expired' });
    await expectHubosRejection(approvals.decide('run-1', 'c2', { approved: true }), 'APPROVAL_NOT_FOUND');
  });

  it('lists only the run asked for, even when another run id starts with it', async () => {
    const approvals = new Approvals(new MemoryStore(), { pollMs: 0 });
    const controller = new AbortController();
    const a = approvals.request(request('x'), { signal: controller.signal, timeoutMs: 60_000 });
    const b = approvals.request(
      { ...request('y'), runId: 'run-1/extra' },
      { signal: controller.signal, timeoutMs: 60_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await approvals.list('run-1')).map((r) => r.callId)).toEqual(['x']);
    expect((await approvals.list()).map((r) => r.callId).sort()).toEqual(['x', 'y']);
    controller.abort();
    await Promise.all([a, b]);
  });

  it('still works in memory when the store cannot be written, and says so', async () => {
    // A real failing write: the approvals table of a file opened read-only.
    const path = join(dir, `readonly-${files++}.db`);
    const writable = new SqliteStore(path);
    await openApprovalTable(writable);
    await writable.close();
    const readOnly = new DatabaseSync(path, { readOnly: true });
    const table = Promise.resolve(new SqliteApprovalTable(readOnly, path));
    const warnings: string[] = [];
    const approvals = new Approvals(new MemoryStore(), {
      table,
      onError: (message) => warnings.push(message),
      pollMs: 0,
    });
    const waiting = approvals.request(request(), {
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      onOpen: () => void approvals.decide('run-1', 'c1', { approved: true }),
    });
    expect(await waiting).toMatchObject({ status: 'approved' });
    expect(warnings[0]).toMatch(/^could not store approval c1: store .*readonly/);
    readOnly.close();
  });
});

describe('a pending approval and a fresh kernel on the same SQLite file', () => {
  it('is listed by the fresh kernel, and ends cancelled when the first kernel closes', async () => {
    const path = freshPath();
    const write = permittedTool('write', ['fs:write']);
    const first = await bootAgent({
      tools: [write.tool],
      config: { permissions: { ask: ['fs:write'] } },
      options: { store: sqlite(path) },
      script: [{ toolCalls: [{ name: 'write', input: { path: 'x' }, id: 'c1' }] }, 'never asked'],
    });
    const asked = deferred<string>();
    const running = first.agent.run('go', {
      onEvent: (event) => {
        if (event.type === 'approval-request') asked.resolve(event.runId);
      },
    });
    const runId = await asked.promise;
    const fresh = await bootAgent({ options: { store: sqlite(path) }, script: [] });
    kernels.push(fresh.kernel);
    expect(await fresh.kernel.approvals.list(runId)).toMatchObject([
      { runId, callId: 'c1', agent: 'assistant', tool: 'write', status: 'pending', input: { path: 'x' } },
    ]);
    await first.kernel.close();
    expect((await running).status).toBe('cancelled');
    expect(await fresh.kernel.approvals.get(runId, 'c1')).toMatchObject({ status: 'cancelled' });
  });
});
