import { describe, expect, it } from 'vitest';
import type { RunQuery, RunRecord, RunTable } from '../../core/index.ts';
import { newRunId } from '../../core/runs/run-id.ts';

/** A run record as a test needs it: a fresh time-ordered id, queued by default. */
export function runAt(time: number, more: Partial<RunRecord> = {}): RunRecord {
  const id = newRunIdAt(time);
  return {
    id,
    agent: 'helper',
    owner: 'alice',
    status: 'queued',
    via: 'rest',
    steps: 0,
    input: 'hi',
    createdAt: new Date(time).toISOString(),
    ...more,
  };
}

/** A UUIDv7 id as if made at `time`. */
function newRunIdAt(time: number): string {
  const hex = time.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}${newRunId().slice(13)}`;
}

/** What every runs table does, whichever database holds it. */
export function runTableContract(name: string, open: () => Promise<RunTable>): void {
  describe(`${name} runs table`, () => {
    it('keeps a record as written, with its result and error, and answers undefined for an unknown id', async () => {
      const table = await open();
      const record = runAt(Date.now(), {
        sessionId: 's1',
        result: { text: 'ü\u0000 ok' } as never,
        error: { code: 'X', message: 'y' },
        startedAt: new Date().toISOString(),
      });
      expect(await table.insert(record)).toBe(true);
      expect(await table.get(record.id)).toEqual(record);
      expect(await table.get('nope')).toBeUndefined();
      // An insert of an id already there changes nothing (several instances importing at once).
      expect(await table.insert({ ...record, agent: 'other' })).toBe(false);
      expect((await table.get(record.id))?.agent).toBe('helper');
    });

    it('lets one claimer take each queued run, oldest first, and runs a replace only from where it says', async () => {
      const table = await open();
      const now = Date.now();
      const runs = [runAt(now - 3), runAt(now - 2), runAt(now - 1)];
      for (const run of runs) await table.insert(run);
      const [a, b] = await Promise.all([table.claimQueued('i-a', 2, now), table.claimQueued('i-b', 2, now)]);
      const taken = [...a, ...b];
      expect(taken.map((run) => run.id).sort()).toEqual(runs.map((run) => run.id).sort());
      expect(new Set(taken.map((run) => run.id)).size).toBe(3);
      for (const run of taken)
        expect(run).toMatchObject({ status: 'running', instance: expect.stringMatching(/^i-/) });
      const mine = taken[0]!;
      const ended = { ...mine, status: 'completed' as const, finishedAt: new Date().toISOString() };
      // Not from another instance, not from another status.
      expect(await table.replace(ended, { status: 'running', instance: 'i-z' })).toBe(false);
      expect(await table.replace(ended, { status: 'queued' })).toBe(false);
      expect(await table.replace(ended, { status: 'running', instance: mine.instance })).toBe(true);
      expect(await table.replace(ended, { status: 'running', instance: mine.instance })).toBe(false);
      expect((await table.get(mine.id))?.status).toBe('completed');
    });

    it('carries a cancel flag to the instance holding the run, and lists what other instances hold', async () => {
      const table = await open();
      const run = runAt(Date.now(), { status: 'running', instance: 'i-a' });
      const queued = runAt(Date.now());
      await table.insert(run);
      await table.insert(queued);
      expect(await table.requestCancel(queued.id)).toBe(false);
      expect(await table.requestCancel(run.id)).toBe(true);
      expect(await table.cancelRequested('i-a')).toContain(run.id);
      expect(await table.cancelRequested('i-b')).not.toContain(run.id);
      const elsewhere = (await table.activeElsewhere('i-b')).map((r) => r.id);
      expect(elsewhere).toEqual(expect.arrayContaining([run.id, queued.id]));
      expect((await table.activeElsewhere('i-a')).map((r) => r.id)).not.toContain(run.id);
      // An end clears the flag with the run.
      await table.replace({ ...run, status: 'cancelled' }, { status: 'running', instance: 'i-a' });
      expect(await table.cancelRequested('i-a')).not.toContain(run.id);
    });

    it('lists newest first by owner, filters and id ranges, without transcripts', async () => {
      const table = await open();
      const owner = `o-${Math.random().toString(36).slice(2)}`;
      const base = Date.now() - 10_000;
      const runs = Array.from({ length: 5 }, (_, i) =>
        runAt(base + i, { owner, status: i % 2 ? 'completed' : 'failed', result: { text: 'x' } as never }),
      );
      for (const run of runs) await table.insert(run);
      const ids = (list: RunRecord[]) => list.map((run) => run.id);
      expect(ids(await table.list({ owner, limit: 10 }))).toEqual(ids([...runs].reverse()));
      expect((await table.list({ owner, limit: 1 }))[0]?.result).toBeUndefined();
      expect(ids(await table.list({ owner, limit: 2, before: runs[3]!.id }))).toEqual([
        runs[2]!.id,
        runs[1]!.id,
      ]);
      expect(ids(await table.list({ owner, status: 'completed', limit: 10 }))).toEqual([
        runs[3]!.id,
        runs[1]!.id,
      ]);
      expect(ids(await table.list({ owner, since: base + 3, limit: 10 }))).toEqual([
        runs[4]!.id,
        runs[3]!.id,
      ]);
      expect(ids(await table.list({ owner, until: base + 1, limit: 10 }))).toEqual([runs[0]!.id]);
    });

    it('finds runs by a piece of their input whatever its case, pattern and quote characters taken literally', async () => {
      const table = await open();
      const owner = `o-${Math.random().toString(36).slice(2)}`;
      const base = Date.now() - 10_000;
      const inputs = [
        'Plan the TRIP to Paris',
        'a 100% sure answer',
        'file_name.txt and filename',
        'C:\\temp\\new',
        `it's "quoted"`,
        'trip notes',
        'nothing here',
      ];
      const runs = inputs.map((input, i) => runAt(base + i, { owner, input }));
      for (const run of runs) await table.insert(run);
      // A run with no input is never found by a search.
      await table.insert(runAt(base + 20, { owner, input: undefined }));
      const found = async (q: string, more: Partial<RunQuery> = {}) =>
        (await table.list({ owner, q, limit: 50, ...more })).map((run) => run.input);
      expect(await found('trip')).toEqual(['trip notes', 'Plan the TRIP to Paris']);
      expect(await found('%')).toEqual(['a 100% sure answer']);
      expect(await found('0%')).toEqual(['a 100% sure answer']);
      expect(await found('_')).toEqual(['file_name.txt and filename']);
      expect(await found('e_n')).toEqual(['file_name.txt and filename']);
      expect(await found('\\t')).toEqual(['C:\\temp\\new']);
      expect(await found('\'s "')).toEqual([`it's "quoted"`]);
      expect(await found('%_%')).toEqual([]);
      // With the other filters and the cursor.
      expect(await found('trip', { limit: 1 })).toEqual(['trip notes']);
      expect(await found('trip', { before: runs[5]!.id })).toEqual(['Plan the TRIP to Paris']);
      expect(await found('trip', { owner: 'someone else' })).toEqual([]);
    });

    it('keeps the model a run was asked to use and the run it repeats, and lists them', async () => {
      const table = await open();
      const first = runAt(Date.now() - 1);
      const again = runAt(Date.now(), { model: 'scripted:other', againOf: first.id });
      await table.insert(first);
      await table.insert(again);
      expect(await table.get(again.id)).toEqual(again);
      expect(await table.get(first.id)).toEqual(first);
      const listed = await table.list({ limit: 1, before: runAt(Date.now() + 1).id });
      expect(listed[0]).toMatchObject({ id: again.id, model: 'scripted:other', againOf: first.id });
    });

    it('sums model calls per bucket, group and model over a run-id range, counting each run once', async () => {
      const table = await open();
      // A day of its own in 2001-2028 (a day's start, so 1- and 2-hour buckets start at it), far from other tests' runs.
      const hour = 3_600_000;
      const base = 978_307_200_000 + Math.floor(Math.random() * 10_000) * 24 * hour;
      const owner = `usage-${Math.random().toString(36).slice(2)}`;
      const model = (run: RunRecord, seq: number, name: string, usage: object | undefined) => ({
        runId: run.id,
        seq,
        kind: 'model' as const,
        name,
        step: seq,
        startedAt: run.createdAt,
        finishedAt: run.createdAt,
        durationMs: 0,
        status: 'ok' as const,
        ...(usage && { usage: usage as never }),
      });
      const a = runAt(base + 10, { owner, agent: 'a', status: 'completed' });
      const b = runAt(base + 20, { owner, agent: 'b', status: 'completed', via: 'cli' });
      const c = runAt(base + hour + 5, { owner, agent: 'a', status: 'completed' });
      const other = runAt(base + 30, { owner: `${owner}-other`, agent: 'a', status: 'completed' });
      const outside = runAt(base + 2 * hour, { owner, agent: 'a', status: 'completed' });
      for (const run of [a, b, c, other, outside]) await table.insert(run);
      await table.addSteps([
        model(a, 1, 'gpt-4.1', { inputTokens: 100, outputTokens: 10, cachedInputTokens: 60 }),
        { ...model(a, 2, 'echo', undefined), kind: 'tool' as const, callId: 'c1' },
        model(a, 3, 'gpt-4.1', { inputTokens: 200, outputTokens: 20 }),
        model(a, 4, 'claude-sonnet-4', { inputTokens: 7, outputTokens: 3 }),
        model(b, 1, 'gpt-4.1', { inputTokens: 1, outputTokens: 2 }),
        // A call that failed before the provider told its usage still counts as a call.
        model(b, 2, 'gpt-4.1', undefined),
        model(c, 1, 'gpt-4.1', { inputTokens: 5, outputTokens: 5, cachedInputTokens: 1 }),
        model(other, 1, 'gpt-4.1', { inputTokens: 1000, outputTokens: 1000 }),
        model(outside, 1, 'gpt-4.1', { inputTokens: 1000, outputTokens: 1000 }),
      ]);
      const range = { owner, from: base, to: base + 2 * hour, bucketMs: hour };
      expect(await table.usage({ ...range, groupBy: 'none' })).toEqual([
        {
          bucket: base,
          group: '',
          model: 'claude-sonnet-4',
          runs: 1,
          firstRuns: 1,
          modelCalls: 1,
          inputTokens: 7,
          outputTokens: 3,
          cachedInputTokens: 0,
        },
        {
          bucket: base,
          group: '',
          model: 'gpt-4.1',
          runs: 2,
          firstRuns: 1,
          modelCalls: 4,
          inputTokens: 301,
          outputTokens: 32,
          cachedInputTokens: 60,
        },
        {
          bucket: base + hour,
          group: '',
          model: 'gpt-4.1',
          runs: 1,
          firstRuns: 1,
          modelCalls: 1,
          inputTokens: 5,
          outputTokens: 5,
          cachedInputTokens: 1,
        },
      ]);
      const byAgent = await table.usage({ ...range, groupBy: 'agent', bucketMs: 2 * hour });
      expect(byAgent.map((row) => [row.group, row.model, row.runs, row.modelCalls, row.inputTokens])).toEqual(
        [
          ['a', 'claude-sonnet-4', 1, 1, 7],
          ['a', 'gpt-4.1', 2, 3, 305],
          ['b', 'gpt-4.1', 1, 2, 1],
        ],
      );
      const filtered = await table.usage({ ...range, groupBy: 'owner', via: 'cli', agent: 'b' });
      expect(filtered.map((row) => [row.group, row.model, row.modelCalls])).toEqual([[owner, 'gpt-4.1', 2]]);
      // Everyone's (no owner): the other owner's run is in the range too.
      const all = await table.usage({ from: base, to: base + hour, bucketMs: hour, groupBy: 'owner' });
      expect(all.map((row) => row.group)).toEqual([owner, owner, `${owner}-other`]);
      expect(
        await table.usage({ ...range, from: base + 3 * hour, to: base + 4 * hour, groupBy: 'none' }),
      ).toEqual([]);
    });

    it("keeps a run's steps in order and deletes them with the run", async () => {
      const table = await open();
      const run = runAt(Date.now(), { status: 'completed' });
      await table.insert(run);
      const at = new Date().toISOString();
      const step = {
        runId: run.id,
        kind: 'model' as const,
        name: 'm',
        step: 1,
        startedAt: at,
        finishedAt: at,
        durationMs: 0,
        status: 'ok' as const,
      };
      await table.addSteps([
        {
          ...step,
          seq: 2,
          kind: 'tool',
          name: 'echo',
          callId: 'c1',
          error: { code: 'E', message: 'm' },
          status: 'error',
        },
        { ...step, seq: 1, usage: { inputTokens: 3, outputTokens: 4 } as never, finishReason: 'tool-calls' },
      ]);
      // A step written twice (a write retried) stays one.
      await table.addSteps([{ ...step, seq: 1 }]);
      const steps = await table.steps(run.id);
      expect(steps.map((s) => [s.seq, s.kind, s.name, s.status])).toEqual([
        [1, 'model', 'm', 'ok'],
        [2, 'tool', 'echo', 'error'],
      ]);
      expect(steps[0]).toMatchObject({
        usage: { inputTokens: 3, outputTokens: 4 },
        finishReason: 'tool-calls',
      });
      expect(steps[1]).toMatchObject({ callId: 'c1', error: { code: 'E', message: 'm' } });
      expect(await table.delete(run.id)).toBe(true);
      expect(await table.delete(run.id)).toBe(false);
      expect(await table.steps(run.id)).toEqual([]);
      expect(await table.get(run.id)).toBeUndefined();
    });
    it("keeps a run's journal in order until dropped, and with the run's resumes and whether it may resume", async () => {
      const table = await open();
      const run = runAt(Date.now(), { status: 'running', instance: 'i-dead', resumable: true });
      await table.insert(run);
      const user = { role: 'user' as const, content: 'go' };
      const asked = {
        role: 'assistant' as const,
        content: '',
        toolCalls: [{ id: 'c1', name: 'x', input: { a: [1] } }],
      };
      const answered = { role: 'tool' as const, toolCallId: 'c1', name: 'x', content: 'ok' };
      expect(await table.journal({ runId: run.id, seq: 2, step: 1, messages: [answered] }, 'i-dead')).toBe(
        true,
      );
      expect(await table.journal({ runId: run.id, seq: 1, step: 1, messages: [user, asked] }, 'i-dead')).toBe(
        true,
      );
      // An entry written twice (a write retried) stays one.
      await table.journal({ runId: run.id, seq: 1, step: 1, messages: [user, asked] }, 'i-dead');
      expect(await table.readJournal(run.id)).toEqual([
        { runId: run.id, seq: 1, step: 1, messages: [user, asked] },
        { runId: run.id, seq: 2, step: 1, messages: [answered] },
      ]);
      expect(await table.get(run.id)).toMatchObject({ resumable: true });
      // Taken over from the dead instance: only from where the run was, once.
      const taken = { ...run, instance: 'i-alive', resumes: 1 };
      expect(await table.replace(taken, { status: 'running', instance: 'i-dead' })).toBe(true);
      expect(
        await table.replace({ ...taken, instance: 'i-other' }, { status: 'running', instance: 'i-dead' }),
      ).toBe(false);
      expect(await table.get(run.id)).toMatchObject({ instance: 'i-alive', resumes: 1, resumable: true });
      // The instance it was taken from writes nothing more, and learns so: it stops the run.
      expect(await table.journal({ runId: run.id, seq: 3, step: 2, messages: [user] }, 'i-dead')).toBe(false);
      expect(await table.readJournal(run.id)).toHaveLength(2);
      await table.dropJournal(run.id);
      expect(await table.readJournal(run.id)).toEqual([]);
      expect(await table.journal({ runId: run.id, seq: 3, step: 2, messages: [user] }, 'i-alive')).toBe(true);
      await table.replace({ ...taken, status: 'completed' }, { status: 'running', instance: 'i-alive' });
      expect(await table.delete(run.id)).toBe(true);
      expect(await table.readJournal(run.id)).toEqual([]);
    });

    it('keeps the steps a run keeps itself only while the instance writing holds it, numbered in order', async () => {
      const table = await open();
      const run = runAt(Date.now(), {
        agent: 'workflow:w',
        status: 'running',
        instance: 'i-a',
        resumable: true,
      });
      await table.insert(run);
      const at = new Date().toISOString();
      const step = (name: string, detail: unknown) => ({
        runId: run.id,
        seq: 0,
        kind: 'step' as const,
        name,
        step: 0,
        startedAt: at,
        finishedAt: at,
        durationMs: 0,
        status: 'ok' as const,
        detail,
      });
      expect(await table.keepStep(step('fetch', { key: 'fetch', output: { rows: [1, 'ü'] } }), 'i-a')).toBe(
        true,
      );
      expect(await table.keepStep({ ...step('if', true), kind: 'decision' }, 'i-a')).toBe(true);
      expect(await table.runningOn('i-a')).toEqual([run.id]);
      // Another instance took the run over: the one that held it writes nothing more.
      await table.replace({ ...run, instance: 'i-b', resumes: 1 }, { status: 'running', instance: 'i-a' });
      expect(await table.runningOn('i-a')).toEqual([]);
      expect(await table.keepStep(step('late', null), 'i-a')).toBe(false);
      // Numbered steps too (an agent's model and tool calls): refused for the instance that lost it.
      expect(await table.addSteps([{ ...step('stale', null), seq: 3 }], 'i-a')).toBe(false);
      expect(await table.keepStep(step('work', 'done'), 'i-b')).toBe(true);
      expect(await table.addSteps([{ ...step('next', null), seq: 4 }], 'i-b')).toBe(true);
      const kept = await table.steps(run.id);
      expect(kept.map((s) => [s.seq, s.kind, s.name, s.detail])).toEqual([
        [1, 'step', 'fetch', { key: 'fetch', output: { rows: [1, 'ü'] } }],
        [2, 'decision', 'if', true],
        [3, 'step', 'work', 'done'],
        [4, 'step', 'next', null],
      ]);
      // Ended: nothing more is kept.
      await table.replace(
        { ...run, instance: 'i-b', status: 'completed' },
        { status: 'running', instance: 'i-b' },
      );
      expect(await table.keepStep(step('after', null), 'i-b')).toBe(false);
      expect(await table.steps(run.id)).toHaveLength(4);
    });

    it("writes a run's end with its last steps and drops its journal in one write, or none of it for an instance that no longer holds the run", async () => {
      const table = await open();
      const run = runAt(Date.now(), { status: 'running', instance: 'i-a', resumable: true, steps: 0 });
      await table.insert(run);
      await table.journal(
        { runId: run.id, seq: 1, step: 1, messages: [{ role: 'user', content: 'go' }] },
        'i-a',
      );
      const at = new Date(Date.now() + 5).toISOString();
      const step = (seq: number, name: string) => ({
        runId: run.id,
        seq,
        kind: 'tool' as const,
        name,
        step: 1,
        callId: `c${seq}`,
        startedAt: at,
        finishedAt: at,
        durationMs: 0,
        status: 'ok' as const,
        usage: { inputTokens: 1, outputTokens: 2 } as never,
      });
      // Paused while another instance took the run over: its end, steps and drop are refused whole.
      await table.replace({ ...run, instance: 'i-b', resumes: 1 }, { status: 'running', instance: 'i-a' });
      const late = {
        ...run,
        status: 'completed' as const,
        finishedAt: at,
        result: { text: 'late' } as never,
      };
      expect(await table.finish(late, { status: 'running', instance: 'i-a' }, [step(1, 'late')])).toBe(false);
      expect(await table.get(run.id)).toMatchObject({ status: 'running', instance: 'i-b' });
      expect(await table.steps(run.id)).toEqual([]);
      expect(await table.readJournal(run.id)).toHaveLength(1);
      // The holder's end: all of it at once.
      const done = {
        ...run,
        instance: 'i-b',
        resumes: 1,
        status: 'completed' as const,
        steps: 2,
        finishedAt: at,
        updatedAt: at,
        result: { text: 'ü done' } as never,
      };
      expect(
        await table.finish(done, { status: 'running', instance: 'i-b' }, [
          step(1, 'a'),
          step(2, 'b\'"\u0000'),
        ]),
      ).toBe(true);
      expect(await table.get(run.id)).toEqual(done);
      const steps = await table.steps(run.id);
      expect(steps.map((s) => [s.seq, s.name, s.callId, s.usage])).toEqual([
        [1, 'a', 'c1', { inputTokens: 1, outputTokens: 2 }],
        // A NUL from the model (PostgreSQL's text cannot hold one) does not stop the end.
        [2, 'b\'"\uFFFD', 'c2', { inputTokens: 1, outputTokens: 2 }],
      ]);
      expect(await table.readJournal(run.id)).toEqual([]);
      // Written once: the same end again (told twice) is told written, and changes nothing.
      expect(await table.finish(done, { status: 'running', instance: 'i-b' }, [step(3, 'again')])).toBe(true);
      expect(await table.steps(run.id)).toHaveLength(2);
      // Another end is refused.
      expect(
        await table.finish({ ...done, status: 'failed' }, { status: 'running', instance: 'i-b' }, []),
      ).toBe(false);
      expect(await table.get(run.id)).toEqual(done);
      // An end with no steps left to write (a run that kept none).
      const other = runAt(Date.now(), { status: 'running', instance: 'i-a' });
      await table.insert(other);
      expect(
        await table.finish({ ...other, status: 'failed' }, { status: 'running', instance: 'i-a' }, []),
      ).toBe(true);
      expect(await table.get(other.id)).toMatchObject({ status: 'failed' });
    });
  });
}
