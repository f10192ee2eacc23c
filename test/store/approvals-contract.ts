import { describe, expect, it } from 'vitest';
import { pruneSessions } from '../../core/agent/session-retention.ts';
import { pruneApprovals } from '../../core/approvals/approval-retention.ts';
import {
  type ApprovalCursor,
  type ApprovalRecord,
  Approvals,
  HubosError,
  readEntries,
  Sessions,
  type Store,
} from '../../core/index.ts';
import { openApprovalTable, openSessionTable } from '../../core/runs/open-run-table.ts';
import { taskTables } from '../../plugins/hubos/a2a-task-records.ts';
import { eraseOwner } from '../../plugins/hubos/erase-owner.ts';
import { pruneTasks } from '../../plugins/hubos/task-retention.ts';

const DAY = 86_400_000;

/** An approval as the agent loop stores it: pending, for `principal`, asked at `at`. */
export function approvalAt(at: number, runId: string, callId: string, more: Partial<ApprovalRecord> = {}) {
  const record: ApprovalRecord = {
    runId,
    agent: 'helper',
    principal: 'alice',
    step: 1,
    callId,
    tool: 'echo',
    input: { text: 'x' },
    permissions: [],
    requestedAt: new Date(at).toISOString(),
    expiresAt: new Date(at + 3_600_000).toISOString(),
    status: 'pending',
    ...more,
  };
  return record;
}

const decidedAt = (at: number, runId: string, callId: string, principal = 'alice') =>
  approvalAt(at, runId, callId, {
    principal,
    status: 'approved',
    decidedAt: new Date(at + 1_000).toISOString(),
  });

async function outcome(decision: Promise<unknown>): Promise<string> {
  try {
    await decision;
    return 'won';
  } catch (error) {
    return HubosError.is(error) ? (error.code as string) : String(error);
  }
}

export interface ApprovalsContractStores {
  /** A store of this kind, fresh. */
  fresh(): Promise<Store>;
  /** Another handle on the same database as `store` (another instance). */
  another(store: Store): Promise<Store>;
  /** A store as the previous release left it: approvals as key/value records, written here. */
  previous(approvals: ApprovalRecord[]): Promise<Store>;
}

/** What the approvals table does, whichever database holds it. */
export function approvalsContract(name: string, stores: ApprovalsContractStores): void {
  describe(`${name} approvals table`, () => {
    it('moves the approvals a store of the previous release kept as records into the table, and decides them', async () => {
      const now = Date.now();
      const store = await stores.previous([
        approvalAt(now - 2_000, 'run-old', 'c1'),
        decidedAt(now - 3_000, 'run-old', 'c0'),
        approvalAt(now - 1_000, 'run-other', 'c1', { principal: 'bob' }),
      ]);
      const approvals = new Approvals(store, { pollMs: 0 });
      expect((await approvals.list('run-old', { all: true })).map((a) => [a.callId, a.status])).toEqual([
        ['c0', 'approved'],
        ['c1', 'pending'],
      ]);
      expect(await readEntries(store, 'approvals')).toEqual([]);
      const page = await approvals.page({ owner: 'alice', limit: 10 });
      expect(page.approvals.map((a) => `${a.runId}/${a.callId}`)).toEqual(['run-old/c1']);
      expect(await outcome(approvals.decide('run-old', 'c1', { approved: true }))).toBe('RUN_NOT_RUNNING');
      expect(await approvals.get('run-old', 'c1')).toMatchObject({ status: 'approved' });
      expect((await approvals.page({ limit: 10 })).approvals.map((a) => a.runId)).toEqual(['run-other']);
    });

    it('lets exactly one of two instances decide an approval both decide at once, and the asking run follows it', async () => {
      const first = await stores.fresh();
      const second = await stores.another(first);
      const asking = new Approvals(first, { pollMs: 5 });
      const here = new Approvals(first, { pollMs: 0 });
      const there = new Approvals(second, { pollMs: 0 });
      for (let trial = 0; trial < 10; trial++) {
        const callId = `c${trial}`;
        let opened!: () => void;
        const open = new Promise<void>((resolve) => {
          opened = resolve;
        });
        const final = asking.request(approvalAt(Date.now(), 'run-1', callId), {
          signal: new AbortController().signal,
          timeoutMs: 60_000,
          onOpen: () => opened(),
        });
        await open;
        const results = await Promise.all([
          outcome(here.decide('run-1', callId, { approved: true })),
          outcome(there.decide('run-1', callId, { approved: false, reason: 'no' })),
        ]);
        // Neither waits for it, so the winner hears its decision is recorded; the other, that it was decided.
        expect(results.sort(), `trial ${trial}`).toEqual(['APPROVAL_DECIDED', 'RUN_NOT_RUNNING']);
        const stored = await there.get('run-1', callId);
        expect(['approved', 'denied']).toContain(stored?.status);
        expect((await final).status).toBe(stored?.status);
      }
    });

    it("lists an owner's pending approvals a page at a time, never the decided ones", async () => {
      const store = await stores.fresh();
      const table = await openApprovalTable(store);
      const base = Date.now() - 60_000;
      for (let i = 0; i < 30; i++) await table.put(decidedAt(base + i, `run-d${i}`, 'c1'));
      for (let i = 0; i < 5; i++) await table.put(approvalAt(base + 100 + i, `run-p${i}`, 'c1'));
      await table.put(approvalAt(base + 103, 'run-p3', 'c2'));
      await table.put(approvalAt(base + 200, 'run-b', 'c1', { principal: 'bob' }));
      const approvals = new Approvals(store);
      const seen: string[] = [];
      let after: ApprovalCursor | undefined;
      for (;;) {
        const page = await approvals.page({ owner: 'alice', limit: 2, after });
        seen.push(...page.approvals.map((a) => `${a.runId}/${a.callId}`));
        if (!page.next) break;
        after = page.next;
      }
      expect(seen).toEqual(['run-p0/c1', 'run-p1/c1', 'run-p2/c1', 'run-p3/c1', 'run-p3/c2', 'run-p4/c1']);
      expect((await approvals.page({ limit: 50 })).approvals).toHaveLength(7);
      expect((await approvals.page({ owner: 'alice', all: true, limit: 50 })).approvals).toHaveLength(36);
    });

    it('keeps the store bounded: decided approvals, idle sessions and idle tasks past their retention go, a batch at a time', async () => {
      const store = await stores.fresh();
      const table = await openApprovalTable(store);
      const now = Date.now();
      const old = now - 40 * DAY;
      // What a busy month left: decided approvals, sessions and tasks, all older than kept.
      for (let i = 0; i < 60; i++) await table.put(decidedAt(old + i, `run-${i}`, 'c1'));
      await table.put(approvalAt(old, 'run-waiting', 'c1'));
      await table.put(decidedAt(now - DAY, 'run-new', 'c1'));
      const sessions = await openSessionTable(store);
      const hi = [{ role: 'user' as const, content: 'hi' }];
      for (let i = 0; i < 60; i++)
        await sessions.append(i % 2 ? 'helper' : 'retired', `s${i}`, 'local', hi, { at: old + i });
      // One old session written to yesterday: it is not idle.
      await sessions.append('helper', 's7', 'local', hi, { at: now - DAY });
      await new Sessions(store).append('helper', 'fresh', [{ role: 'user', content: 'hello' }]);
      const task = (id: string, at: number, state = 'TASK_STATE_COMPLETED') => ({
        owner: 'alice',
        task: { id, status: { state, timestamp: new Date(at).toISOString() } },
      });
      const { tasks, runs } = await taskTables(store);
      for (let i = 0; i < 60; i++) {
        await tasks.put(`helper/t${i}`, task(`t${i}`, old + i));
        await runs.put(`helper/t${i}`, { runId: `run-${i}` });
      }
      await tasks.put('helper/t-new', task('t-new', now));
      // As old, but not over: its run still works, or it waits for an answer.
      await tasks.put('helper/t-working', task('t-working', old, 'TASK_STATE_WORKING'));
      await tasks.put('helper/t-asking', task('t-asking', old, 'TASK_STATE_INPUT_REQUIRED'));
      await runs.put('helper/t-working', { runId: 'run-working' });

      const policy = { maxAgeDays: 30 };
      // Small batches, again while one is full: what the engine's tick does, drained.
      for (let n = 50; n === 50; ) n = await pruneApprovals(table, policy, 50);
      for (let n = 50; n === 50; ) n = await pruneSessions(sessions, policy, 50);
      for (let n = 50; n === 50; ) n = await pruneTasks(store, policy, 50);

      const approvals = new Approvals(store);
      expect((await approvals.page({ all: true, limit: 200 })).approvals.map((a) => a.runId).sort()).toEqual([
        'run-new',
        'run-waiting',
      ]);
      expect((await sessions.listOwned('local', 100)).map((s) => s.sessionId)).toEqual(['fresh', 's7']);
      expect((await tasks.list({ order: 'oldest' })).entries.map((e) => e.key).sort()).toEqual([
        'helper/t-asking',
        'helper/t-new',
        'helper/t-working',
      ]);
      // Each task deleted took its link to its run with it.
      expect((await runs.list()).entries.map((e) => e.key)).toEqual(['helper/t-working']);
    });

    it("erases an owner's approvals, sessions and A2A tasks, and nobody else's", async () => {
      const store = await stores.fresh();
      const table = await openApprovalTable(store);
      const now = Date.now();
      await table.put(approvalAt(now, 'run-a', 'c1'));
      await table.put(decidedAt(now, 'run-a', 'c0'));
      await table.put(approvalAt(now, 'run-b', 'c1', { principal: 'bob' }));
      const said = (content: string) => [{ role: 'user' as const, content }];
      const sessions = new Sessions(store);
      await sessions.append('helper', 'alice~s1', said('mine'));
      await sessions.append('helper', 'bob~s1', said('theirs'));
      // Of an agent since removed from the config: erased all the same.
      await sessions.append('retired', 'alice~s2', [...said('mine too'), ...said('and this')]);
      await sessions.append('retired', 'bob~s2', said('theirs too'));
      const { tasks, runs } = await taskTables(store);
      await tasks.put('helper/t-a', { owner: 'alice', task: { id: 't-a' } });
      await runs.put('helper/t-a', { runId: 'run-a' });
      await tasks.put('helper/t-b', { owner: 'bob', task: { id: 't-b' } });
      const erased = await eraseOwner(store, 'alice');
      expect(erased).toMatchObject({ approvals: 2, sessions: 2, sessionMessages: 3, tasks: 1 });
      const approvals = new Approvals(store);
      expect((await approvals.page({ all: true, limit: 50 })).approvals.map((a) => a.principal)).toEqual([
        'bob',
      ]);
      expect(await sessions.listOwned('alice')).toEqual([]);
      expect((await sessions.listOwned('bob')).map((s) => `${s.agent}/${s.sessionId}`)).toEqual([
        'helper/bob~s1',
        'retired/bob~s2',
      ]);
      expect((await tasks.list()).entries.map((e) => e.key)).toEqual(['helper/t-b']);
      expect(await runs.count()).toBe(0);
    });
  });
}
