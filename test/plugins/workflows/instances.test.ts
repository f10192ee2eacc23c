/**
 * Two kernels sharing one SQLite file and one LocalBus stand in for two instances of a service:
 * a workflow run is a run of the engine, held by the instance that claimed it in the runs table,
 * and the runs of an instance that died are resumed (`autoResume`) or marked interrupted.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Bus, HubosError, type Kernel, LocalBus, SqliteStore } from '../../../core/index.ts';
import { defineWorkflow, type WorkflowsOptions } from '../../../plugins/workflows/index.ts';
import { tempDir } from '../../helpers/run.ts';
import { sharedLocalBus } from '../cosmos/helpers.ts';
import { bootWorkflows } from './helpers.ts';

/** How many times each step ran, across both instances (they share this process). */
let runs: Record<string, number> = {};
/** Released by the test: the first `work` waits on it (or on its signal). */
let gate: { open(): void; wait(signal: AbortSignal): Promise<void> };

function newGate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    open,
    wait: (signal: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        void opened.then(resolve);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
  };
}

const count = (id: string) => {
  runs[id] = (runs[id] ?? 0) + 1;
  return runs[id];
};

// `work` blocks on its first execution only: the run an instance "dies" in, not its resume.
const job = defineWorkflow({
  name: 'job',
  steps: [
    { id: 'fetch', kind: 'function', run: () => `fetched ${count('fetch')}` },
    {
      id: 'work',
      kind: 'function',
      run: async (s, { signal }) => {
        if (count('work') === 1) await gate.wait(signal);
        return `${s.steps.fetch} worked`;
      },
    },
    { id: 'store', kind: 'function', run: (s) => ({ saved: s.steps.work, n: count('store') }) },
  ],
});

/** Waits for the gate on every run: what keeps instances busy. */
const hold = defineWorkflow({
  name: 'hold',
  steps: [{ id: 'hold', kind: 'function', run: (_s, { signal }) => gate.wait(signal) }],
});

/** Two instances on one store file and one bus; `b` gets its own `workflows` options. */
async function twoInstances(b: WorkflowsOptions = {}, bus: Bus = new LocalBus()) {
  runs = {};
  gate = newGate();
  const file = join(await tempDir('hubos-wf-lease-'), 'hubos.db');
  const boot = (workflows: WorkflowsOptions) =>
    bootWorkflows([job, hold], undefined, {
      store: new SqliteStore(file),
      bus,
      config: { bus: { leaseMs: 1000 }, workflows },
    });
  const first = await boot({});
  const second = await boot(b);
  return {
    a: { kernel: first.kernel, job: first.workflows.get('job')!, hold: first.workflows.get('hold')! },
    b: { kernel: second.kernel, job: second.workflows.get('job')! },
  };
}

const codeOf = (error: unknown) => (HubosError.is(error) ? error.code : String(error));

/** The runs still queued or running in the shared table (none is left behind by a run that ended). */
async function unfinished(kernel: Kernel): Promise<string[]> {
  const table = await kernel.runs.table();
  return (await table.activeElsewhere('nobody')).map((record) => record.id);
}

describe('cancelling a workflow run on another instance', () => {
  it('reaches the instance running it: at once over a shared bus, through the run row without one', async () => {
    const shared = await twoInstances({}, sharedLocalBus());
    const running = shared.a.job.run({}, { runId: 'far' });
    await expect.poll(() => runs.work).toBe(1);
    expect(await shared.b.job.cancel('far')).toBe(true);
    expect((await running).status).toBe('cancelled');
    expect(await shared.b.job.getRun('far')).toMatchObject({
      status: 'cancelled',
      error: { code: 'RUN_CANCELLED' },
    });

    // No shared bus: `a` reads the cancel flag on the run's row every third of a lease.
    const alone = await twoInstances();
    const held = alone.a.job.run({}, { runId: 'near' });
    await expect.poll(() => runs.work).toBe(1);
    expect(await alone.b.job.cancel('near')).toBe(true);
    expect((await held).status).toBe('cancelled');
    // Ended: nothing to cancel.
    expect(await alone.b.job.cancel('near')).toBe(false);
    expect(runs).toEqual({ fetch: 1, work: 1 });
  });
});

describe('workflow run claims', () => {
  it('of two instances resuming one run at once, exactly one runs it; the other gets WORKFLOW_RUN_ACTIVE', async () => {
    const { a, b } = await twoInstances();
    const controller = new AbortController();
    const first = a.job.run({}, { runId: 'r1', signal: controller.signal });
    await expect.poll(() => runs.work).toBe(1);
    controller.abort();
    expect((await first).status).toBe('cancelled');
    runs.work = 0; // the resumed `work` blocks again, so both resumes overlap

    const resumes = [a.job.resume('r1'), b.job.resume('r1')];
    const refused = await Promise.race(
      resumes.map((p, i) =>
        p.then(
          () => -1,
          () => i,
        ),
      ),
    );
    expect(refused).toBeGreaterThanOrEqual(0);
    await expect(resumes[refused]).rejects.toSatisfy(
      (error) => codeOf(error) === 'WORKFLOW_RUN_ACTIVE' && /on instance/.test(String(error)),
    );
    gate.open();
    const done = await resumes[1 - refused]!;
    expect(done).toMatchObject({ status: 'completed', resumes: 1 });
    expect(done.instance).toBe([a, b][1 - refused]!.kernel.instance.id);
    expect(runs).toEqual({ fetch: 1, work: 1, store: 1 });
    // Ended: nothing left claimed in the runs table.
    expect(await unfinished(a.kernel)).toEqual([]);
  });

  it('of two instances starting one run id at once, one runs it', async () => {
    const { a, b } = await twoInstances();
    gate.open();
    const started = await Promise.allSettled([
      a.job.run({}, { runId: 'same' }),
      b.job.run({}, { runId: 'same' }),
    ]);
    const failed = started.filter((r) => r.status === 'rejected');
    expect(failed).toHaveLength(1);
    expect(codeOf((failed[0] as PromiseRejectedResult).reason)).toBe('WORKFLOW_RUN_ACTIVE');
    expect(runs).toEqual({ fetch: 1, work: 1, store: 1 });
  });

  it('takes over a run whose instance looks dead; the old holder, taken over, stops and writes nothing more', async () => {
    const { a, b } = await twoInstances();
    const stalled = a.job.run({}, { runId: 'r2' });
    await expect.poll(() => runs.work).toBe(1);
    // `a` stopped its heartbeat (a long pause) but still runs the run: it looks dead to `b`.
    await a.kernel.instance.stop();
    const resumed = await b.job.resume('r2');
    expect(resumed).toMatchObject({ status: 'completed', resumes: 1, instance: b.kernel.instance.id });
    expect(resumed.steps.map((s) => [s.id, s.status])).toEqual([
      ['fetch', 'completed'],
      ['work', 'completed'],
      ['store', 'completed'],
    ]);
    expect(runs).toEqual({ fetch: 1, work: 2, store: 1 });
    // `a` finds the run's row held by `b` at its next look: it stops, and says so, without recording it.
    expect(await stalled).toMatchObject({ status: 'interrupted', error: { code: 'RUN_INTERRUPTED' } });
    expect(await b.job.getRun('r2')).toMatchObject({ status: 'completed', instance: b.kernel.instance.id });
    expect((await b.job.getRun('r2'))!.steps).toHaveLength(3);
  });

  it('refuses to resume a run another live instance holds, even one recorded as interrupted', async () => {
    const { a, b } = await twoInstances();
    const running = a.job.run({}, { runId: 'r3' });
    await expect.poll(() => runs.work).toBe(1);
    await expect(b.job.resume('r3')).rejects.toSatisfy((e) => codeOf(e) === 'WORKFLOW_RUN_ACTIVE');
    gate.open();
    expect((await running).status).toBe('completed');
    await expect(b.job.resume('r3')).rejects.toSatisfy((e) => codeOf(e) === 'WORKFLOW_RUN_FINISHED');
  });
});

describe('runs of an instance that died', () => {
  it('autoResume: another instance resumes them, without running finished steps again', async () => {
    const { a, b } = await twoInstances({ autoResume: true });
    const orphan = a.job.run({}, { runId: 'r4' });
    await expect.poll(() => runs.work).toBe(1);
    // `a` dies: its heartbeat is gone, so its claim on the run counts for nothing.
    await a.kernel.instance.stop();
    await expect.poll(async () => (await b.job.getRun('r4'))?.status, { timeout: 5_000 }).toBe('completed');
    const run = (await b.job.getRun('r4'))!;
    expect(run).toMatchObject({
      resumes: 1,
      instance: b.kernel.instance.id,
      output: { saved: 'fetched 1 worked' },
    });
    expect(runs).toEqual({ fetch: 1, work: 2, store: 1 });
    expect(await orphan).toMatchObject({ status: 'interrupted' });
    expect(await unfinished(b.kernel)).toEqual([]);
  });

  it('without autoResume they are marked interrupted, and an explicit resume finishes them', async () => {
    const { a, b } = await twoInstances();
    const orphan = a.job.run({}, { runId: 'r5' });
    await expect.poll(() => runs.work).toBe(1);
    await a.kernel.instance.stop();
    await expect.poll(async () => (await b.job.getRun('r5'))?.status, { timeout: 5_000 }).toBe('interrupted');
    expect(await b.job.getRun('r5')).toMatchObject({
      error: { code: 'RUN_INTERRUPTED', message: expect.stringContaining(a.kernel.instance.id) },
    });
    expect(await orphan).toMatchObject({ status: 'interrupted' });
    expect(await unfinished(b.kernel)).toEqual([]);

    expect(await b.job.resume('r5')).toMatchObject({ status: 'completed', resumes: 1 });
    expect(runs).toEqual({ fetch: 1, work: 2, store: 1 });
  });
});

describe('queued runs', () => {
  it('are recorded queued, claimed from the runs table by an instance with room, and run once', async () => {
    const { a, b } = await twoInstances();
    gate.open();
    await expect(a.job.enqueue('not an object' as never)).rejects.toSatisfy(
      (e) => codeOf(e) === 'WORKFLOW_INPUT_INVALID',
    );
    const header = await a.job.enqueue({}, { runId: 'q1', principal: 'key:1' });
    expect(header).toMatchObject({ runId: 'q1', status: 'queued', owner: 'key:1' });
    await expect.poll(async () => (await b.job.getRun('q1'))?.status).toBe('completed');
    expect(runs).toEqual({ fetch: 1, work: 1, store: 1 });
    await expect(a.job.enqueue({}, { runId: 'q1' })).rejects.toSatisfy(
      (e) => codeOf(e) === 'WORKFLOW_RUN_ACTIVE',
    );
  });

  it('a queued run cancelled before an instance takes it never runs', async () => {
    const { a } = await twoInstances();
    // Both instances (16 runs at once each) are busy: the next run waits in the queue.
    await Promise.all(Array.from({ length: 32 }, (_, i) => a.hold.enqueue({}, { runId: `busy-${i}` })));
    await expect.poll(() => a.hold.active.length).toBe(16);
    await a.job.enqueue({}, { runId: 'q2' });
    expect(await a.job.cancel('q2')).toBe(true);
    expect(await a.job.getRun('q2')).toMatchObject({ status: 'cancelled', error: { code: 'RUN_CANCELLED' } });
    gate.open();
    await expect.poll(async () => (await a.hold.getRun('busy-31'))?.status).toBe('completed');
    expect(await a.job.getRun('q2')).toMatchObject({ status: 'cancelled' });
    expect(runs).toEqual({});
    expect(await a.job.cancel('q2')).toBe(false);
  });
});
