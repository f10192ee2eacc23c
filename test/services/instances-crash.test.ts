// `kill -9` of an instance: another instance resumes its running runs from their journal (finished
// calls are not made again, a call in flight of a tool that is not idempotent is reported of unknown
// outcome), its followers' streams go on; runs queued but not started when their enqueuer dies run
// elsewhere.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../core/runs/run-record.ts';
import { FINAL, getRun, postJson, postStream, request, waitForRun } from './helpers/http.ts';
import { Cluster, printed, type ServeProcess } from './helpers/instances.ts';
import { describeFrames, SSEReader } from './helpers/sse.ts';

const LEASE_MS = 1_200;
const clusters: Cluster[] = [];

afterAll(async () => {
  await Promise.all(clusters.map((cluster) => cluster.cleanup()));
}, 60_000);

async function cluster(
  count: number,
  maxRuns: number,
): Promise<{ cluster: Cluster; instances: ServeProcess[] }> {
  const made = new Cluster({ leaseMs: LEASE_MS });
  clusters.push(made);
  const instances = await Promise.all(Array.from({ length: count }, () => made.start({ maxRuns })));
  return { cluster: made, instances };
}

async function enqueue(on: ServeProcess, agent: string, input: string): Promise<string> {
  const answer = await postJson(`${on.url}/api/agents/${agent}/run?async=true`, { input });
  expect(answer.status, answer.text).toBe(202);
  return answer.body.runId as string;
}

describe('an instance killed with SIGKILL', () => {
  it('leaves its run to another instance, which resumes it: the tool ran once, the stream goes on', async () => {
    const { instances } = await cluster(3, 2);
    const [victim] = instances;
    // Streamed from the victim, so the run is the victim's.
    const first = new SSEReader(await postStream(`${victim!.url}/api/agents/relay/run`, { input: 'relay' }));
    const started = await first.until((frame) => frame.event === 'run-start', 'the run start');
    const runId = (started.data as { runId: string }).runId;
    await first.until((frame) => frame.event === 'tool-result', 'the stamp result');
    // Into the second model call: a few words of the answer have streamed.
    await first.until((frame) => frame.event === 'text-delta', 'the answer streaming');
    await first.until((frame) => frame.event === 'text-delta', 'more of the answer');
    expect(count(victim!.output.stdout, `stamp-ran ${runId}`)).toBe(1);

    const killedAt = Date.now();
    await victim!.kill();
    // The victim's socket is gone with it: its stream ends (or is given up on after a few seconds).
    await Promise.race([first.rest().catch(() => undefined), sleep(5_000)]);
    await first.cancel();
    const seen = first.frames.filter((frame) => frame.id !== undefined);
    const lastId = seen.at(-1)!.id!;
    const survivors = instances.slice(1);
    // The client comes back through another instance, from the last event it saw.
    const second = new SSEReader(
      await fetch(`${survivors[0]!.url}/api/runs/${runId}/events`, {
        headers: { 'last-event-id': lastId },
        signal: AbortSignal.timeout(30_000),
      }),
    );
    const rest = await second.rest();
    const tookMs = Date.now() - killedAt;
    expect(rest.at(-1), describeFrames(rest)).toMatchObject({
      event: 'run-end',
      data: { id: runId, status: 'completed' },
    });
    const done = await getRun(survivors[1]!.url, runId);
    expect(done).toMatchObject({ status: 'completed', resumes: 1 });
    expect(survivors.some((survivor) => survivor.owns(done.instance))).toBe(true);
    // The finished tool call was not made again: its result came from the journal.
    expect(done.result?.text).toMatch(/relayed \{"stamped":true\}$/);
    for (const survivor of survivors) expect(survivor.output.stdout).not.toContain(`stamp-ran ${runId}`);
    // Every event once: the numbers go on from the last one the victim's log kept, without a gap.
    const ids = [...seen, ...rest.filter((frame) => frame.id !== undefined)].map((frame) => Number(frame.id));
    expect(ids, describeFrames(rest)).toEqual(ids.map((_, i) => i + 1));
    console.log(
      `[instances-crash] run resumed and completed ${tookMs} ms after SIGKILL (lease ${LEASE_MS} ms)`,
    );
  }, 90_000);

  it('resumes a run whose tool was in flight: a tool that is not idempotent is not run again', async () => {
    const { cluster: service, instances } = await cluster(3, 2);
    const runId = await enqueue(instances[0]!, 'waiter', 'pause');
    const running = await waitForRun(instances[0]!.url, runId, (r) => r.status === 'running', 'running');
    const victim = service.byInstanceId(running.instance);
    expect(victim, `no process owns instance ${running.instance}`).toBeDefined();
    await printed(victim!, `pause-start ${runId}`);
    const survivors = instances.filter((instance) => instance !== victim);
    const follower = new SSEReader(await fetch(`${survivors[0]!.url}/api/runs/${runId}/events`));
    await follower.until((frame) => frame.event === 'tool-call-end', 'the pause call');

    await victim!.kill();
    const resumed = await waitForRun(survivors[1]!.url, runId, undefined, 'a final state', 10 * LEASE_MS);
    expect(resumed).toMatchObject({ status: 'completed', resumes: 1 });
    // The model heard that the call's outcome is unknown, and answered from there.
    expect(resumed.result?.text).toContain('may or may not have taken effect');
    const frames = await follower.rest();
    expect(frames.at(-1), describeFrames(frames)).toMatchObject({
      event: 'run-end',
      data: { id: runId, status: 'completed' },
    });
    for (const survivor of survivors) expect(survivor.output.stdout).not.toContain(`pause-start ${runId}`);
    // Ended: a cancel is answered so.
    const cancel = await request(`${survivors[0]!.url}/api/runs/${runId}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.code).toBe('RUN_ENDED');

    // The survivors go on serving.
    const next = await enqueue(survivors[0]!, 'quick', 'after the crash');
    const done = await waitForRun(survivors[1]!.url, next);
    expect(done).toMatchObject({ status: 'completed' });
    expect(victim!.alive).toBe(false);
    for (const survivor of survivors) expect(survivor.alive).toBe(true);
  }, 90_000);

  it('runs elsewhere the runs it had queued but nobody had started', async () => {
    // One slot per instance, all taken by runs that wait until cancelled.
    const { cluster: service, instances } = await cluster(3, 1);
    const [enqueuer] = instances;
    const blockers = [
      await enqueue(enqueuer!, 'waiter', 'pause'),
      await enqueue(enqueuer!, 'waiter', 'pause'),
      await enqueue(enqueuer!, 'waiter', 'pause'),
    ];
    const blocking = await Promise.all(
      blockers.map((id) => waitForRun(enqueuer!.url, id, (r) => r.status === 'running', 'running')),
    );
    const runners = blocking.map((record) => service.byInstanceId(record.instance)!);
    expect(new Set(runners).size).toBe(3);
    for (const [i, runner] of runners.entries()) await printed(runner, `pause-start ${blockers[i]}`);

    // More runs than slots: they wait in the runs table, for whichever instance has room.
    const waiting = [
      await enqueue(enqueuer!, 'waiter', 'pause 200'),
      await enqueue(enqueuer!, 'quick', 'queued one'),
      await enqueue(enqueuer!, 'quick', 'queued two'),
    ];
    for (const id of waiting) {
      const record = await getRun(enqueuer!.url, id);
      expect(record.status).toBe('queued');
      // A queued run is no instance's until one takes it from the table.
      expect(record.instance).toBeUndefined();
    }

    await enqueuer!.kill();
    const survivors = instances.filter((instance) => instance !== enqueuer);
    const mine = blockers[runners.indexOf(enqueuer!)]!;
    // Its own running run is resumed elsewhere (its pause reported of unknown outcome) and ends.
    const resumed = await waitForRun(survivors[0]!.url, mine, undefined, 'a final state', 10 * LEASE_MS);
    expect(resumed).toMatchObject({ status: 'completed', resumes: 1 });
    expect(resumed.result?.text).toContain('may or may not have taken effect');
    // Nobody has room yet: the queued runs are still queued, not lost nor failed.
    for (const id of waiting) expect((await getRun(survivors[1]!.url, id)).status).toBe('queued');

    // Free the survivors' slots (each cancelled through the other instance): the queued runs run there.
    for (const [i, runner] of runners.entries()) {
      if (runner === enqueuer) continue;
      const through = survivors.find((survivor) => survivor !== runner)!;
      const cancelled = await request(`${through.url}/api/runs/${blockers[i]}/cancel`, { method: 'POST' });
      expect(cancelled.status, cancelled.text).toBe(200);
      expect(cancelled.body.status).toBe('cancelled');
    }
    const done: RunRecord[] = [];
    for (const id of waiting)
      done.push(await waitForRun(survivors[0]!.url, id, undefined, 'a final state', 30_000));
    expect(done.map((record) => record.status)).toEqual(['completed', 'completed', 'completed']);
    for (const record of done)
      expect(survivors.some((survivor) => survivor.owns(record.instance))).toBe(true);
    expect(done[0]!.result?.text).toBe('waited: {"waited":200}');
    expect(done[1]!.result?.text).toBe('done: queued one');
    expect(done[2]!.result?.text).toBe('done: queued two');
    // The resumed one stayed so, and its tool ran nowhere else.
    expect(await getRun(survivors[1]!.url, mine)).toEqual(resumed);
    for (const survivor of survivors) expect(survivor.output.stdout).not.toContain(`pause-start ${mine}`);
    for (const id of [...blockers, ...waiting])
      expect(FINAL.has((await getRun(survivors[0]!.url, id)).status)).toBe(true);
  }, 120_000);
});

const count = (text: string, line: string) => text.split(line).length - 1;
