import { describe, expect, it } from 'vitest';
import { Approvals, MemoryStore } from '../../core/index.ts';
import { RunHandedOver } from '../../core/runs/run-handed-over.ts';

const request = {
  runId: 'run-1',
  agent: 'helper',
  step: 1,
  callId: 'c1',
  tool: 'write',
  input: {},
  permissions: ['fs:write'],
};

/** Asks on `approvals`, resolving once the request is stored; `done` is what the run is finally told. */
async function ask(approvals: Approvals, signal: AbortSignal) {
  let done!: Promise<unknown>;
  await new Promise<void>((opened) => {
    done = approvals.request(request, { signal, timeoutMs: 60_000, onOpen: () => opened() });
  });
  return done;
}

describe('a run stopped while it waits for an approval', () => {
  it('leaves the stored request pending when another instance took the run over, and the new holder can still have it decided', async () => {
    const store = new MemoryStore();
    const paused = new Approvals(store, { pollMs: 5 });
    const controller = new AbortController();
    const done = ask(paused, controller.signal);
    const stored = await paused.get('run-1', 'c1');
    expect(stored?.status).toBe('pending');
    // The instance that held the run wakes to find it taken over, and stops it.
    controller.abort(new RunHandedOver('run-1'));
    expect(await done).toMatchObject({ status: 'cancelled' });
    expect(await paused.get('run-1', 'c1')).toEqual(stored);
    // The instance that took it over adopts the same request, and a decision reaches it.
    const holder = new Approvals(store, { pollMs: 5 });
    const adopted = holder.request(request, {
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      adopt: stored,
    });
    await holder.decide('run-1', 'c1', { approved: true });
    expect(await adopted).toMatchObject({ status: 'approved', requestedAt: stored?.requestedAt });
  });

  it('cancels the stored request when the run is cancelled here', async () => {
    const store = new MemoryStore();
    const approvals = new Approvals(store, { pollMs: 5 });
    const controller = new AbortController();
    const done = ask(approvals, controller.signal);
    controller.abort(new Error('cancelled by request'));
    expect(await done).toMatchObject({ status: 'cancelled' });
    expect((await approvals.get('run-1', 'c1'))?.status).toBe('cancelled');
  });
});
