/**
 * The regex worker pool with real worker threads: bounded, FIFO, cancellable, and a catastrophic
 * pattern in one slot times out and frees it. No timings are asserted (see bench/ for those).
 */
import { describe, expect, it, vi } from 'vitest';
import { createSandbox } from '../../../../core/index.ts';
import { resolveLimits } from '../../../../plugins/builtin-tools/filesystem/options.ts';
import { type RegexJob, RegexPool } from '../../../../plugins/builtin-tools/filesystem/regex-pool.ts';
import { searchTool } from '../../../../plugins/builtin-tools/filesystem/search.ts';
import { invokeTool } from '../../../../testing/index.ts';
import { workspace } from './helpers.ts';

// (a+)+$ against a run of a's that ends in "b" backtracks through 2^n splits before failing.
const EVIL: RegexJob = { source: '(a+)+$', flags: '', text: `${'a'.repeat(40)}b`, max: 10, file: 'trap.txt' };
const job = (n: number): RegexJob => ({
  source: 'match \\d+',
  flags: '',
  text: `line\nmatch ${n}\nmatch\n`,
  max: 10,
  file: `f${n}.txt`,
});

// Idle workers are unref'd and end on their own; every test settles all it starts.
function pool(size: number, timeoutMs = 60_000, idleMs?: number): RegexPool {
  return new RegexPool({ size, timeoutMs, ...(idleMs ? { idleMs } : {}) });
}

/** Settles to 'pending' if `promise` has not settled by the time already-queued callbacks ran. */
async function state(promise: Promise<unknown>): Promise<'pending' | 'resolved' | 'rejected'> {
  const pending = Symbol('pending');
  const settled = await Promise.race([
    promise.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    new Promise((resolve) => setImmediate(() => resolve(pending))),
  ]);
  return settled === pending ? 'pending' : (settled as 'resolved' | 'rejected');
}

describe('RegexPool', () => {
  it('runs 50 concurrent jobs on at most `size` workers, all with correct results', async () => {
    const regex = pool(2);
    const results = await Promise.all(Array.from({ length: 50 }, (_, n) => regex.match(job(n))));
    expect(results).toEqual(Array.from({ length: 50 }, () => [1]));
    expect(regex.stats.peakWorkers).toBe(2);
    expect(regex.stats.queued).toBe(0);
  });

  it('reuses an idle worker, and ends it after the idle time', async () => {
    const regex = pool(2, 60_000, 50);
    for (let n = 0; n < 5; n++) expect(await regex.match(job(n))).toEqual([1]);
    expect(regex.stats).toMatchObject({ startedWorkers: 1, peakWorkers: 1 });
    await vi.waitFor(() => expect(regex.stats.workers).toBe(0));
    expect(await regex.match(job(5))).toEqual([1]);
    expect(regex.stats.startedWorkers).toBe(2);
  });

  it('times out a catastrophic pattern and frees its slot for the jobs queued behind it', async () => {
    const regex = pool(1, 300);
    const evil = regex.match(EVIL);
    const others = Array.from({ length: 3 }, (_, n) => regex.match(job(n)));
    await expect(evil).rejects.toThrow('took longer than 300 ms on trap.txt');
    expect(await Promise.all(others)).toEqual([[1], [1], [1]]);
    expect(regex.stats).toMatchObject({ peakWorkers: 1, startedWorkers: 2 });
  });

  it('a job cancelled while queued leaves the queue at once; the running one is untouched', async () => {
    const regex = pool(1);
    const stuck = new AbortController();
    const running = regex.match(EVIL, stuck.signal);
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const queued = controllers.map((controller, n) => regex.match(job(n), controller.signal));
    expect(regex.stats.queued).toBe(5);
    for (const n of [0, 2, 4]) controllers[n]!.abort();
    for (const n of [0, 2, 4]) await expect(queued[n]).rejects.toThrow('the search was cancelled');
    expect(regex.stats).toMatchObject({ queued: 2, workers: 1, startedWorkers: 1 });
    expect(await state(running)).toBe('pending');
    expect(await state(queued[1]!)).toBe('pending');
    // Cancelling the running one ends its (stuck) worker; the slot then serves the rest in order.
    stuck.abort();
    await expect(running).rejects.toThrow('the search was cancelled');
    expect(await Promise.all([queued[1], queued[3]])).toEqual([[1], [1]]);
    expect(regex.stats).toMatchObject({ peakWorkers: 1, startedWorkers: 2, queued: 0 });
  });

  it('rejects at once, starting nothing, when the signal is already aborted', async () => {
    const regex = pool(1);
    await expect(regex.match(job(0), AbortSignal.abort())).rejects.toThrow('the search was cancelled');
    expect(regex.stats.startedWorkers).toBe(0);
  });

  it('serves queued jobs first come, first served', async () => {
    const regex = pool(1);
    const order: number[] = [];
    await Promise.all(Array.from({ length: 10 }, (_, n) => regex.match(job(n)).then(() => order.push(n))));
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});

describe('filesystem_search on a shared pool', () => {
  it('50 concurrent regex searches use at most `searchRegexWorkers` threads and all find their match', async () => {
    const ws = await workspace();
    const files: Record<string, string> = {};
    for (let n = 0; n < 50; n++) files[`d${n}/f.txt`] = `line\nneedle ${n}\n`;
    await ws.write(files);
    const limits = resolveLimits({ searchRegexWorkers: 3 });
    const regex = pool(limits.searchRegexWorkers, limits.searchRegexTimeoutMs);
    const tool = searchTool(limits, regex);
    const sandbox = createSandbox(ws.root);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        invokeTool(tool, { pattern: `needle ${n}$`, path: `d${n}` }, { sandbox }),
      ),
    );
    results.forEach((result, n) => {
      expect(result).toMatchObject({
        ok: true,
        output: { matches: [{ file: `d${n}/f.txt`, line: 2, text: `needle ${n}` }] },
      });
    });
    expect(regex.stats.peakWorkers).toBeLessThanOrEqual(3);
    expect(regex.stats.queued).toBe(0);
  });

  it('a search stuck on a catastrophic pattern fails alone; cancelled queued searches fail, the rest succeed', async () => {
    const ws = await workspace();
    await ws.write({ 'trap/t.txt': `${EVIL.text}\n`, 'ok/f.txt': 'needle\n' });
    const limits = resolveLimits({ searchRegexWorkers: 1, searchRegexTimeoutMs: 300 });
    const regex = pool(1, 300);
    const tool = searchTool(limits, regex);
    const sandbox = createSandbox(ws.root);
    const search = (pattern: string, path: string, signal?: AbortSignal) =>
      invokeTool(tool, { pattern, path }, { sandbox, ...(signal ? { signal } : {}) });
    const stuck = search(EVIL.source, 'trap');
    await vi.waitFor(() => expect(regex.stats.workers).toBe(1));
    const cancelled = new AbortController();
    const dropped = search('needle', 'ok', cancelled.signal);
    const kept = search('need+le', 'ok');
    await vi.waitFor(() => expect(regex.stats.queued).toBe(2));
    cancelled.abort();
    expect(regex.stats.queued).toBe(1);
    expect(await dropped).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('the search was cancelled') },
    });
    expect(await stuck).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('trap/t.txt') },
    });
    expect(await kept).toMatchObject({ ok: true, output: { matches: [{ file: 'ok/f.txt', line: 1 }] } });
  });
});
