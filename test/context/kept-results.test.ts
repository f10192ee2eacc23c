// Kept results go when their run does (runs.retention), never while it runs, and on erasure.
import { describe, expect, it } from 'vitest';
import {
  eraseKeptResults,
  keepResult,
  pruneKeptResults,
  readKept,
  runStartOf,
} from '../../core/context/kept-results.ts';
import { MemoryStore, type RunRecord } from '../../core/index.ts';
import { openRunTable } from '../../core/internal.ts';
import { newRunId } from '../../core/runs/run-id.ts';
import { runAt } from '../store/run-table-contract.ts';

const DAY = 86_400_000;
const ended = (time: number, more: Partial<RunRecord> = {}) =>
  runAt(time, { status: 'completed', finishedAt: new Date(time).toISOString(), ...more });

async function keptFor(store: MemoryStore, runId: string, principal = 'alice') {
  return keepResult(store, {
    principal,
    runId,
    agent: 'helper',
    tool: 'dump',
    callId: 'c1',
    text: `of ${runId}`,
  });
}

const readable = async (store: MemoryStore, handle: string, principal = 'alice') =>
  readKept(store, handle, principal).then(
    () => true,
    () => false,
  );

describe('kept results', () => {
  it('are filed under their run start, read from the run id', () => {
    const now = Date.now();
    expect(Math.abs(runStartOf(newRunId()) - now)).toBeLessThan(5_000);
    expect(runStartOf(runAt(now - 3 * DAY).id)).toBe(now - 3 * DAY);
    expect(runStartOf('not-a-time-ordered-id', 42)).toBe(42);
  });

  it('expire with maxAgeDays, except those of a run still going', async () => {
    const store = new MemoryStore();
    const runs = await openRunTable(store);
    const now = Date.now();
    const old = ended(now - 10 * DAY);
    const going = runAt(now - 20 * DAY, { status: 'running', instance: 'i-1' });
    const recent = ended(now - DAY);
    for (const run of [old, going, recent]) await runs.insert(run);
    const handles = {
      old: await keptFor(store, old.id),
      going: await keptFor(store, going.id),
      recent: await keptFor(store, recent.id),
      // A run the engine never recorded (a direct agent.run()): aged from when it was kept.
      direct: await keptFor(store, 'direct-run'),
    };
    expect(await pruneKeptResults(store, { maxAgeDays: 7 }, now)).toBe(1);
    expect(await readable(store, handles.old)).toBe(false);
    expect(await readable(store, handles.going)).toBe(true);
    expect(await readable(store, handles.recent)).toBe(true);
    expect(await readable(store, handles.direct)).toBe(true);
    expect(await pruneKeptResults(store, { maxAgeDays: 7 }, now)).toBe(0);
    expect(await pruneKeptResults(store, { maxAgeDays: 7 }, now + 30 * DAY)).toBe(2);
    expect(await readable(store, handles.going)).toBe(true);
  });

  it('expire with maxRuns: those of runs older than the newest kept go', async () => {
    const store = new MemoryStore();
    const runs = await openRunTable(store);
    const now = Date.now();
    const older = ended(now - 3_000);
    const newer = ended(now - 1_000);
    for (const run of [older, newer]) await runs.insert(run);
    const first = await keptFor(store, older.id);
    const second = await keptFor(store, newer.id);
    expect(await pruneKeptResults(store, { maxRuns: 1 }, now)).toBe(1);
    expect(await readable(store, first)).toBe(false);
    expect(await readable(store, second)).toBe(true);
    expect(await pruneKeptResults(store, {}, now)).toBe(0);
  });

  it("are read only by their principal, and erasure takes one principal's only", async () => {
    const store = new MemoryStore();
    const alice = await keptFor(store, newRunId(), 'alice');
    const bob = await keptFor(store, newRunId(), 'bob');
    const nobody = await keepResult(store, { runId: 'r', agent: 'a', tool: 't', callId: 'c', text: 'x' });
    expect(await readable(store, alice, 'bob')).toBe(false);
    expect(await readable(store, nobody, 'bob')).toBe(false);
    // A run for nobody (started in code) is the keyless caller's, as its session is: erased with `local`.
    expect((await readKept(store, nobody, undefined)).text).toBe('x');
    expect((await readKept(store, nobody, 'local')).text).toBe('x');
    await expect(readKept(store, 'result-../../etc', 'alice')).rejects.toThrow(/no kept result/);
    expect(await eraseKeptResults(store, 'alice')).toBe(1);
    expect(await readable(store, alice)).toBe(false);
    expect(await readable(store, bob, 'bob')).toBe(true);
    expect(await eraseKeptResults(store, 'local')).toBe(1);
    expect(await readable(store, nobody)).toBe(false);
  });
});
