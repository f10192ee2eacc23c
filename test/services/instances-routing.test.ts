// Two `hubos serve` processes on one PostgreSQL schema and one Redis prefix are one service: a run
// started on one is read, streamed (and resumed), cancelled and approved through the other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRun, type Json, postJson, postStream, request, waitForRun } from './helpers/http.ts';
import { Cluster, printed, type ServeProcess } from './helpers/instances.ts';
import { pollUntil } from './helpers/poll.ts';
import { describeFrames, type SSEFrame, SSEReader } from './helpers/sse.ts';

const cluster = new Cluster();
let a: ServeProcess;
let b: ServeProcess;

beforeAll(async () => {
  [a, b] = await Promise.all([cluster.start({ name: 'A' }), cluster.start({ name: 'B' })]);
}, 60_000);

afterAll(() => cluster.cleanup(), 60_000);

/** Starts a run on `on` with an SSE request (so that instance runs it) and reads up to its run-start. */
async function startStreaming(on: ServeProcess, agent: string, input: string) {
  const stream = new SSEReader(await postStream(`${on.url}/api/agents/${agent}/run`, { input }));
  const start = await stream.until((frame) => frame.event === 'run-start', 'run-start');
  return { stream, runId: String(start.data.runId) };
}

const numbered = (frames: SSEFrame[]) => frames.filter((frame) => frame.id !== undefined);

/** The instance that does not run `record`. */
const other = (instanceId: string | undefined) => (a.owns(instanceId) ? b : a);

describe('two instances, one service', () => {
  it('reads, streams and resumes on B a run that runs on A', async () => {
    const { stream, runId } = await startStreaming(a, 'slow', 'words=25 delay=80');
    // The record is stored before the first event: B reads it while A runs it.
    const live = await getRun(b.url, runId);
    expect(live).toMatchObject({ id: runId, agent: 'slow', status: 'running' });
    expect(a.owns(live.instance)).toBe(true);

    const onB = new SSEReader(await fetch(`${b.url}/api/runs/${runId}/events`));
    const [fromA, fromB] = await Promise.all([stream.rest(), onB.rest()]);
    const endOnB = fromB.at(-1)!;
    expect(endOnB.event, describeFrames(fromB)).toBe('run-end');
    expect(endOnB.data).toMatchObject({ id: runId, status: 'completed' });
    expect(endOnB.data.result.text).toBe(Array.from({ length: 25 }, (_, i) => `w${i + 1}`).join(' '));
    // B streamed exactly what A's own client got, numbered 1..n in order.
    const eventsOnB = numbered(fromB);
    expect(eventsOnB.map((frame) => frame.id)).toEqual(eventsOnB.map((_, i) => String(i + 1)));
    expect(eventsOnB.map(({ id, event, data }) => ({ id, event, data }))).toEqual(
      numbered(fromA).map(({ id, event, data }) => ({ id, event, data })),
    );
    expect(eventsOnB.filter((frame) => frame.event === 'text-delta')).toHaveLength(25);

    // Resuming on B after event 7 gives 8..n, then the end.
    const resumed = await new SSEReader(
      await fetch(`${b.url}/api/runs/${runId}/events`, { headers: { 'last-event-id': '7' } }),
    ).rest();
    expect(numbered(resumed).map((frame) => frame.id)).toEqual(eventsOnB.slice(7).map((frame) => frame.id));
    expect(resumed.at(-1)).toMatchObject({ event: 'run-end', data: { id: runId, status: 'completed' } });
    expect(await getRun(b.url, runId)).toMatchObject({ status: 'completed', steps: 1 });
  });

  it('resumes on B, mid-run, a stream cut on B', async () => {
    const { stream, runId } = await startStreaming(a, 'slow', 'words=30 delay=80');
    const first = new SSEReader(await fetch(`${b.url}/api/runs/${runId}/events`));
    const cut = await first.until((frame) => frame.event === 'text-delta' && frame.data.delta === 'w5 ');
    await first.cancel();
    expect((await getRun(b.url, runId)).status).toBe('running');

    const resumed = await new SSEReader(
      await fetch(`${b.url}/api/runs/${runId}/events`, { headers: { 'last-event-id': cut.id! } }),
    ).rest();
    const all = numbered(await stream.rest());
    expect(numbered(resumed).map((frame) => frame.id)).toEqual(
      all.filter((frame) => Number(frame.id) > Number(cut.id)).map((frame) => frame.id),
    );
    const text = resumed
      .filter((frame) => frame.event === 'text-delta')
      .map((frame) => frame.data.delta)
      .join('');
    expect(text).toBe(Array.from({ length: 25 }, (_, i) => `w${i + 6}`).join(' '));
    expect(resumed.at(-1)).toMatchObject({ event: 'run-end', data: { status: 'completed' } });
  });

  it('runs a run queued on A wherever there is room, readable and streamable from the other', async () => {
    const queued = await postJson(`${a.url}/api/agents/slow/run?async=true`, { input: 'words=10 delay=50' });
    expect(queued.status).toBe(202);
    const { runId, events } = queued.body as Json;
    const running = await waitForRun(b.url, runId, (record) => record.status !== 'queued', 'running');
    expect(running.instance).toBeDefined();
    // Streamed from the instance that does not run it.
    const frames = await new SSEReader(await fetch(`${other(running.instance).url}${events}`)).rest();
    expect(frames.at(-1)).toMatchObject({ event: 'run-end', data: { id: runId, status: 'completed' } });
    expect(frames[0]).toMatchObject({ id: '1', event: 'run-start' });
    const done = await getRun(a.url, runId);
    expect(done).toMatchObject({ status: 'completed', instance: running.instance });
    expect(done.result?.text).toBe('w1 w2 w3 w4 w5 w6 w7 w8 w9 w10');
  });

  it('cancels through B a run on A: the record says cancelled and A stops it', async () => {
    const { stream, runId } = await startStreaming(a, 'waiter', 'pause');
    await stream.until((frame) => frame.event === 'tool-call-end', 'the pause call');
    await printed(a, `pause-start ${runId}`);
    const onB = new SSEReader(await fetch(`${b.url}/api/runs/${runId}/events`));

    const cancelled = await request(`${b.url}/api/runs/${runId}/cancel`, { method: 'POST' });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ id: runId, status: 'cancelled' });
    expect(a.owns(cancelled.body.instance)).toBe(true);

    // A's own client sees its run end cancelled; A's tool was aborted; nothing runs on A any more.
    const fromA = await stream.rest();
    const last = fromA.filter((frame) => frame.event === 'run-finish' || frame.event === 'run-error').at(-1);
    expect(last?.data.result.status, describeFrames(fromA)).toBe('cancelled');
    await printed(a, `pause-stopped ${runId}`);
    expect(a.output.stdout).not.toContain(`pause-end ${runId}`);
    await pollUntil(
      'A to run nothing',
      async () => (await request(`${a.url}/health`)).body.runs,
      (n) => n === 0,
    );
    // B's follower heard the end too, and both instances read the same final record.
    const onBFrames = await onB.rest();
    expect(onBFrames.at(-1)).toMatchObject({ event: 'run-end', data: { id: runId, status: 'cancelled' } });
    expect(await getRun(a.url, runId)).toMatchObject({ status: 'cancelled' });
    expect(await getRun(b.url, runId)).toMatchObject({ status: 'cancelled' });

    // Cancelling again, from either side, says it has ended.
    const again = await request(`${a.url}/api/runs/${runId}/cancel`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('RUN_ENDED');
  });

  it('cancels through A a queued run that B runs', async () => {
    // Queued, then taken by whichever instance: cancelled from the other one.
    const queued = await postJson(`${a.url}/api/agents/waiter/run?async=true`, { input: 'pause' });
    expect(queued.status).toBe(202);
    const runId = queued.body.runId as string;
    const running = await waitForRun(a.url, runId, (record) => record.status === 'running', 'running');
    const runner = cluster.byInstanceId(running.instance)!;
    await printed(runner, `pause-start ${runId}`);
    const cancelled = await request(`${other(running.instance).url}/api/runs/${runId}/cancel`, {
      method: 'POST',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    await printed(runner, `pause-stopped ${runId}`);
  });

  it("lists on B an approval A's run waits for; approved through B, the run goes on with the tool", async () => {
    const { stream, runId } = await startStreaming(a, 'asker', 'hello');
    const asked = await stream.until((frame) => frame.event === 'approval-request', 'the approval request');
    const callId = String(asked.data.callId);
    expect(asked.data).toMatchObject({ runId, tool: 'guarded', input: { text: 'hello' } });

    // Listed on both instances; only A has the run waiting in its process.
    const onB = await request(`${b.url}/api/runs/${runId}/approvals`);
    expect(onB.status).toBe(200);
    expect(onB.body.approvals).toEqual([
      expect.objectContaining({ runId, callId, tool: 'guarded', status: 'pending', live: false }),
    ]);
    const onA = await request(`${a.url}/api/runs/${runId}/approvals`);
    expect(onA.body.approvals).toEqual([expect.objectContaining({ callId, status: 'pending', live: true })]);
    expect(a.output.stdout).not.toContain(`guarded-ran ${runId}`);

    const decided = await postJson(`${b.url}/api/runs/${runId}/approvals/${callId}`, { approved: true });
    expect(decided.status, decided.text).toBe(200);
    expect(decided.body).toMatchObject({ runId, callId, status: 'approved' });

    const rest = await stream.rest();
    const result = rest.find((frame) => frame.event === 'approval-result');
    expect(result?.data, describeFrames(rest)).toMatchObject({ callId, approved: true, status: 'approved' });
    const toolResult = rest.find((frame) => frame.event === 'tool-result');
    expect(toolResult?.data.call).toMatchObject({
      name: 'guarded',
      ok: true,
      output: { guarded: 'ok:hello' },
    });
    await printed(a, `guarded-ran ${runId}`);
    expect(b.output.stdout).not.toContain(`guarded-ran ${runId}`);

    const done = await waitForRun(b.url, runId);
    expect(done.status).toBe('completed');
    expect(done.result?.text).toBe('the tool said {"guarded":"ok:hello"}');
    // A second decision, on either instance, is refused.
    const again = await postJson(`${a.url}/api/runs/${runId}/approvals/${callId}`, { approved: false });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('APPROVAL_DECIDED');
    const all = await request(`${b.url}/api/runs/${runId}/approvals?all=true`);
    expect(all.body.approvals).toEqual([
      expect.objectContaining({ callId, status: 'approved', live: false }),
    ]);
  });

  it('denies through B an approval of a queued run, whichever instance runs it', async () => {
    const queued = await postJson(`${b.url}/api/agents/asker/run?async=true`, { input: 'nope' });
    const runId = queued.body.runId as string;
    const pending = await pollUntil(
      'the approval request',
      async () => (await request(`${b.url}/api/runs/${runId}/approvals`)).body.approvals as Json[],
      (approvals) => approvals?.length === 1,
    );
    const running = await getRun(a.url, runId);
    const decider = other(running.instance);
    const decided = await postJson(`${decider.url}/api/runs/${runId}/approvals/${pending[0].callId}`, {
      approved: false,
      reason: 'not today',
    });
    expect(decided.status, decided.text).toBe(200);
    const done = await waitForRun(decider.url, runId);
    expect(done.status).toBe('completed');
    expect(done.result?.text).toContain('denied by the user: not today');
    expect(cluster.byInstanceId(running.instance)!.output.stdout).not.toContain(`guarded-ran ${runId}`);
  });
});
