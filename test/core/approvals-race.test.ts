import { describe, expect, it } from 'vitest';
import { type ApprovalRecord, Approvals, HubosError, MemoryStore } from '../../core/index.ts';

// Two Approvals on one store stand for two instances of a service: `here` runs the run that asks,
// `there` only shares the store. Deciding on both at once must record one decision: the other is
// told APPROVAL_DECIDED, and the run gets the recorded one.

const request = (callId: string) => ({
  runId: 'run-1',
  agent: 'helper',
  step: 1,
  callId,
  tool: 'write',
  input: {},
  permissions: ['fs:write'],
});

/** `won` when the decision was recorded: resolved, or RUN_NOT_RUNNING (recorded for another process). */
async function outcome(decided: Promise<ApprovalRecord>): Promise<'won' | 'lost'> {
  try {
    await decided;
    return 'won';
  } catch (error) {
    if (HubosError.is(error, 'RUN_NOT_RUNNING')) return 'won';
    if (HubosError.is(error, 'APPROVAL_DECIDED')) return 'lost';
    throw error;
  }
}

describe('one approval decided in two processes at once', () => {
  it('records exactly one decision, whichever is sent first, and the run gets it', async () => {
    const store = new MemoryStore();
    // No bus: the run here learns a decision recorded there from the store, polled every 5 ms.
    const here = new Approvals(store, { pollMs: 5 });
    const there = new Approvals(store, { pollMs: 5 });
    // What each run was finally told.
    const finals = new Map<string, ApprovalRecord>();
    for (let trial = 0; trial < 40; trial++) {
      const callId = `c${trial}`;
      const asked = new Promise<void>((opened) => {
        void here
          .request(request(callId), {
            signal: new AbortController().signal,
            timeoutMs: 60_000,
            onOpen: () => opened(),
          })
          .then((final) => finals.set(callId, final));
      });
      await asked;
      // Which is sent first, and how many microtasks apart, varies by trial.
      const gap = trial % 4;
      const sendHere = () => here.decide('run-1', callId, { approved: true });
      const sendThere = () => there.decide('run-1', callId, { approved: false, reason: 'no' });
      const [first, second] = trial % 2 === 0 ? [sendHere, sendThere] : [sendThere, sendHere];
      const firstSent = first();
      for (let i = 0; i < gap; i++) await Promise.resolve();
      const secondSent = second();
      const [a, b] = await Promise.all([outcome(firstSent), outcome(secondSent)]);
      const what = `trial ${trial}: ${a} then ${b}`;
      expect([a, b].sort(), what).toEqual(['lost', 'won']);
      const stored = await (await here.table()).get('run-1', callId);
      const hereWon = (trial % 2 === 0 ? a : b) === 'won';
      expect(stored?.status, what).toBe(hereWon ? 'approved' : 'denied');
      await expect.poll(() => finals.get(callId)?.status, { message: what }).toBe(stored?.status);
    }
  });
});

describe('a decision limited to the principals a caller may see', () => {
  it('is checked on the record decided: another principal’s request is not found, here or in another process', async () => {
    const store = new MemoryStore();
    const here = new Approvals(store, { pollMs: 5 });
    const there = new Approvals(store, { pollMs: 5 });
    const mineOnly = { principal: (owner: string | undefined) => owner === 'key-a' };
    const asked = new Promise<void>((opened) => {
      void here.request(
        { ...request('owned'), principal: 'key-b' },
        { signal: new AbortController().signal, timeoutMs: 60_000, onOpen: () => opened() },
      );
    });
    await asked;
    for (const approvals of [here, there]) {
      const refused = await approvals.decide('run-1', 'owned', { approved: true }, mineOnly).catch((e) => e);
      expect(HubosError.is(refused, 'APPROVAL_NOT_FOUND'), String(refused)).toBe(true);
    }
    expect((await there.get('run-1', 'owned'))?.status).toBe('pending');
    // Its own caller decides it.
    const decided = await here.decide(
      'run-1',
      'owned',
      { approved: true },
      { principal: (owner) => owner === 'key-b' },
    );
    expect(decided.status).toBe('approved');
  });
});
