// PostgreSQL and Redis restarting, or away for a while, under two `hubos serve` instances: every
// run that was acknowledged (200/202 with a run id) ends in a final state, requests that fail
// meanwhile fail cleanly (5xx with a JSON error, in bounded time, no crash), no live instance's run
// is taken for dead, and the instances serve new runs (and cross-instance cancels) afterwards.
// These tests stop and start the machine's services (../shared/DESIGN.md §6b): always brought back.
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../core/runs/run-record.ts';
import {
  describeAnswers,
  FINAL,
  getRun,
  postJson,
  postStream,
  postStreamed,
  request,
  timed,
  waitForRun,
} from './helpers/http.ts';
import { Cluster, printed, type ServeProcess, subscribers } from './helpers/instances.ts';
import { Load, type Outcome } from './helpers/load.ts';
import { pollUntil } from './helpers/poll.ts';
import {
  ensurePostgres,
  ensureRedis,
  postgresAwayFor,
  redisAwayFor,
  restartPostgres,
  restartRedis,
} from './helpers/services.ts';
import { describeFrames, SSEReader } from './helpers/sse.ts';

const clusters: Cluster[] = [];

afterAll(async () => {
  // Whatever happened, the services are back for the next file and for the cleanup.
  await ensurePostgres();
  await ensureRedis();
  await Promise.all(clusters.map((cluster) => cluster.cleanup()));
}, 90_000);

async function pair(maxRuns: number): Promise<[ServeProcess, ServeProcess]> {
  const cluster = new Cluster();
  clusters.push(cluster);
  const [a, b] = await Promise.all([
    cluster.start({ name: 'A', maxRuns }),
    cluster.start({ name: 'B', maxRuns }),
  ]);
  return [a, b];
}

/** Maps with at most `limit` calls under way. */
async function inBatches<T, R>(
  items: T[],
  limit: number,
  map: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await map(items[i]!, i);
      }
    }),
  );
  return results;
}

const tally = (records: RunRecord[]) =>
  records.reduce<Record<string, number>>((counts, record) => {
    counts[record.status] = (counts[record.status] ?? 0) + 1;
    return counts;
  }, {});

/**
 * What must hold once the load has stopped: no unclean answer, no instance crashed, every run an
 * answer named reaches a final state (read from both instances), acknowledged ones completed.
 */
async function checkAftermath(load: Load, instances: ServeProcess[], label: string, more: string[] = []) {
  const unclean = load.outcomes.filter((outcome) => outcome.kind === 'unclean');
  const failed = load.outcomes.filter((outcome) => outcome.kind === 'failed');
  console.log(`[instances-outage] ${label}: ${load.summary()}`);
  if (failed.length > 0)
    console.log(
      `[instances-outage] ${label}: failed cleanly: ${JSON.stringify(countBy(failed, (o) => `${o.status} ${o.code}`))}`,
    );
  expect(unclean, JSON.stringify(unclean.slice(0, 10), null, 1)).toEqual([]);
  for (const outcome of failed) expect(outcome.status).toBeGreaterThanOrEqual(500);
  for (const instance of instances) expect(instance.alive, `instance ${instance.name} exited`).toBe(true);

  const ids = [...new Set([...load.runIds, ...more])];
  const records = await inBatches(ids, 16, (id, i) =>
    waitForRun(() => instances[i % instances.length]!.url, id, undefined, 'a final state', 60_000),
  );
  console.log(
    `[instances-outage] ${label}: ${ids.length} runs, final states ${JSON.stringify(tally(records))}`,
  );
  for (const record of records) expect(FINAL.has(record.status)).toBe(true);
  const acked = new Set([...load.acked.map((outcome) => outcome.runId), ...more]);
  const notCompleted = records.filter((record) => acked.has(record.id) && record.status !== 'completed');
  expect(notCompleted.map(({ id, status, error, instance }) => ({ id, status, error, instance }))).toEqual(
    [],
  );
  // Both instances read the same final record.
  for (const [i, record] of records.entries()) {
    if (i % 10 !== 0) continue;
    expect(await getRun(instances[(i + 1) % instances.length]!.url, record.id)).toEqual(record);
  }
  return records;
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/** New runs on each instance, every way: the service has come back whole. */
async function checkServes(instances: ServeProcess[]) {
  for (const instance of instances) {
    const sync = await postJson(`${instance.url}/api/agents/quick/run`, { input: 'after' });
    expect(sync.status, sync.text).toBe(200);
    expect(sync.body).toMatchObject({ status: 'completed', text: 'done: after' });
    const queued = await postJson(`${instance.url}/api/agents/slow/run?async=true`, {
      input: 'words=3 delay=10',
    });
    expect(queued.status, queued.text).toBe(202);
    expect(await waitForRun(instance.url, queued.body.runId)).toMatchObject({ status: 'completed' });
  }
  // A cancel still crosses instances once the bus subscriptions are back (ioredis subscribes again
  // after its reconnect, which backs off up to 2 s: a cancel published before that is lost).
  const [a, b] = instances as [ServeProcess, ServeProcess];
  await pollUntil(
    'both instances to listen for cancels again',
    () => subscribers(a.prefix, 'runs:cancel'),
    (count) => count >= instances.length,
  );
  const stream = new SSEReader(await postStream(`${a.url}/api/agents/waiter/run`, { input: 'pause' }));
  const runId = String((await stream.until((frame) => frame.event === 'run-start')).data.runId);
  await printed(a, `pause-start ${runId}`);
  const cancelled = await request(`${b.url}/api/runs/${runId}/cancel`, { method: 'POST' });
  expect(cancelled.status, cancelled.text).toBe(200);
  expect(cancelled.body.status).toBe('cancelled');
  await stream.rest();
}

describe('a service restarting under load', () => {
  it('loses no acknowledged run when PostgreSQL restarts', async () => {
    const instances = await pair(4);
    const load = new Load(() => instances);
    load.start();
    let downMs = 0;
    let ackedBefore = 0;
    try {
      await load.waitForMoreAcked(30);
      ackedBefore = load.acked.length;
      downMs = await restartPostgres();
      await load.waitForMoreAcked(30);
    } finally {
      await load.stop();
    }
    console.log(
      `[instances-outage] PostgreSQL restart took ${downMs} ms; ${ackedBefore} runs acknowledged before it`,
    );
    const records = await checkAftermath(load, instances, 'PostgreSQL restart');

    // Each run's event log ends as its record does: no instance heard an end the record contradicts.
    const acked = new Set(load.acked.map((outcome: Outcome) => outcome.runId));
    const ends = await inBatches(
      records.filter((record) => acked.has(record.id)),
      8,
      async (record, i) => {
        const frames = await new SSEReader(
          await fetch(`${instances[i % 2]!.url}/api/runs/${record.id}/events`, {
            signal: AbortSignal.timeout(30_000),
          }),
        ).rest();
        return {
          id: record.id,
          record: record.status,
          events: frames.at(-1)?.data?.status as string | undefined,
        };
      },
    );
    expect(ends.filter((end) => end.events !== end.record)).toEqual([]);
    await checkServes(instances);
  }, 180_000);

  it('loses no acknowledged run when Redis restarts', async () => {
    // Two slots each: the load keeps a backlog in the queue.
    const instances = await pair(2);
    const [a, b] = instances;
    const load = new Load(() => instances);
    load.start();
    let downMs = 0;
    const backlog: string[] = [];
    try {
      await load.waitForMoreAcked(30);
      // Runs that wait in the queue (every slot taken) when Redis goes.
      for (let i = 0; i < 8; i++) {
        const answer = await postJson(`${(i % 2 ? b : a).url}/api/agents/waiter/run?async=true`, {
          input: 'pause 1500',
        });
        expect(answer.status, answer.text).toBe(202);
        backlog.push(answer.body.runId);
      }
      const states = await Promise.all(backlog.map(async (id) => (await getRun(a.url, id)).status));
      expect(states, 'some runs should still be queued when Redis stops').toContain('queued');
      downMs = await restartRedis();
      await load.waitForMoreAcked(30);
    } finally {
      await load.stop();
    }
    console.log(`[instances-outage] Redis restart took ${downMs} ms`);
    await checkAftermath(load, instances, 'Redis restart', backlog);
    await checkServes(instances);
  }, 180_000);
});

describe('PostgreSQL away for a while', () => {
  /** Runs on both instances, started with SSE and each followed from the other instance once under way. */
  async function longRuns(
    instances: [ServeProcess, ServeProcess],
    agent: 'waiter' | 'slow',
    input: string,
    count: number,
  ) {
    const [a, b] = instances;
    const runs: { on: ServeProcess; runId: string; own: SSEReader; follower: SSEReader }[] = [];
    for (let i = 0; i < count; i++) {
      const on = i % 2 ? b : a;
      const own = new SSEReader(await postStream(`${on.url}/api/agents/${agent}/run`, { input }));
      const runId = String((await own.until((frame) => frame.event === 'run-start')).data.runId);
      if (agent === 'waiter') await printed(on, `pause-start ${runId}`);
      else await own.until((frame) => frame.event === 'text-delta', 'the first word');
      const follower = new SSEReader(await fetch(`${(on === a ? b : a).url}/api/runs/${runId}/events`));
      runs.push({ on, runId, own, follower });
    }
    return runs;
  }

  /** How each run ended: for its own client, for its follower on the other instance, in its record. */
  async function outcomes(runs: Awaited<ReturnType<typeof longRuns>>, reader: ServeProcess) {
    return Promise.all(
      runs.map(async (run) => {
        const own = await run.own.rest();
        const followed = await run.follower.rest();
        const record = await waitForRun(reader.url, run.runId, undefined, 'a final state', 60_000);
        return {
          runId: run.runId,
          client: own.find((frame) => frame.event === 'run-finish' || frame.event === 'run-error')?.data
            .result.status,
          follower:
            followed.at(-1)?.event === 'run-end'
              ? followed.at(-1)?.data.status
              : describeFrames(followed.slice(-3)),
          record: record.status,
        };
      }),
    );
  }

  it('marks no running run interrupted while its instance lives through a 5 s outage', async () => {
    // Within the store's retry window (10 s): every write lands once PostgreSQL is back. Both
    // instances' heartbeats expire meanwhile; neither may take the other for dead.
    const instances = await pair(4);
    const runs = await longRuns(instances, 'waiter', 'pause 9000', 4);
    await postgresAwayFor(5_000, async () => undefined);
    const ended = await outcomes(runs, instances[1]);
    expect(ended).toEqual(
      runs.map((run) => ({
        runId: run.runId,
        client: 'completed',
        follower: 'completed',
        record: 'completed',
      })),
    );
    for (const instance of instances) expect(instance.alive).toBe(true);
  }, 120_000);

  it('answers 503 while it is away past the retry window, and loses no run that ended meanwhile', async () => {
    const instances = await pair(4);
    const [a, b] = instances;
    // Runs that end a second or two into the outage: their final record must still be written
    // (the writes queued behind it fail first, each after the store's 10 s of retries).
    const runs = await longRuns(instances, 'slow', 'words=20 delay=80', 2);
    const during = await postgresAwayFor(25_000, async () => {
      return Promise.all([
        timed('sync run', () => postJson(`${b.url}/api/agents/quick/run`, { input: 'away' })),
        timed('async run', () => postJson(`${a.url}/api/agents/quick/run?async=true`, { input: 'away' })),
        timed('record', () => request(`${b.url}/api/runs/${runs[0]!.runId}`)),
        timed('SSE run', () => postStreamed(`${a.url}/api/agents/quick/run`, { input: 'away' })),
      ]);
    });
    console.log(`[instances-outage] while PostgreSQL was away: ${describeAnswers(during)}`);
    const [sse, ...json] = [during.at(-1)!, ...during.slice(0, -1)];
    for (const answer of json) {
      // Failed cleanly: a 5xx with the JSON error, in bounded time (the store's retry window).
      expect(answer.status, `${answer.what}: ${answer.text}`).toBeGreaterThanOrEqual(500);
      expect(answer.body, answer.what).toMatchObject({
        error: { code: 'STORE_FAILED', message: expect.any(String) },
      });
      expect(answer.ms).toBeLessThan(20_000);
    }
    const ended = await outcomes(runs, b);
    expect(ended).toEqual(
      runs.map((run) => ({
        runId: run.runId,
        client: 'completed',
        follower: 'completed',
        record: 'completed',
      })),
    );
    for (const instance of instances) expect(instance.alive).toBe(true);
    await checkServes(instances);
    // Checked last (a known gap, see the report): a run asked for as SSE fails like the others,
    // with the JSON error, rather than as a 200 event stream that ends with no event.
    expect(sse.ms).toBeLessThan(20_000);
    expect(
      { status: sse.status, body: sse.body },
      `SSE run: ${sse.status} ${sse.contentType} "${sse.text}"`,
    ).toMatchObject({
      status: 503,
      body: { error: { code: 'STORE_FAILED' } },
    });
  }, 150_000);
});

describe('Redis away for a while', () => {
  /** Runs posted to both instances while Redis is away for 8 s: each answered within the outage. */
  async function postWhileRedisAway(instances: [ServeProcess, ServeProcess]) {
    const [a, b] = instances;
    const during = await redisAwayFor(8_000, async () => {
      return Promise.all([
        timed('sync run', () => postJson(`${a.url}/api/agents/quick/run`, { input: 'no redis' })),
        timed('async run on B', () =>
          postJson(`${b.url}/api/agents/quick/run?async=true`, { input: 'no redis' }),
        ),
        timed('async run on A', () =>
          postJson(`${a.url}/api/agents/slow/run?async=true`, { input: 'words=3 delay=10' }),
        ),
        timed('health', () => request(`${b.url}/health`)),
      ]);
    });
    console.log(`[instances-outage] while Redis was away: ${describeAnswers(during)}`);
    const runIds: string[] = [];
    for (const answer of during) {
      // An answer within the outage, not after it: a success, or a clean 5xx.
      expect(answer.ms, answer.what).toBeLessThan(8_000);
      if (answer.status >= 500) {
        expect(answer.body, answer.what).toMatchObject({
          error: { code: expect.any(String), message: expect.any(String) },
        });
        continue;
      }
      expect(answer.status, `${answer.what}: ${answer.text}`).toBeLessThan(300);
      if (answer.body?.runId) runIds.push(answer.body.runId);
    }
    return runIds;
  }

  it('answers in bounded time while it is away, and runs what it acknowledged once it is back', async () => {
    const instances = await pair(2);
    // Each instance has queued runs before: its queue client is connected when Redis goes.
    for (const instance of instances) {
      const warm = await postJson(`${instance.url}/api/agents/quick/run?async=true`, { input: 'warm' });
      expect(await waitForRun(instance.url, warm.body.runId)).toMatchObject({ status: 'completed' });
    }
    const runIds = await postWhileRedisAway(instances);
    expect(runIds.length).toBeGreaterThanOrEqual(3);
    // What was acknowledged meanwhile runs once Redis is back (queued jobs that Redis lost are queued again).
    for (const id of runIds)
      expect(await waitForRun(instances[1].url, id, undefined, 'a final state', 30_000)).toMatchObject({
        status: 'completed',
      });
    for (const instance of instances) expect(instance.alive).toBe(true);
    await checkServes(instances);
  }, 120_000);

  it('queues runs again once it is back, on instances that had queued nothing before it went', async () => {
    // The first enqueue of each instance happens while Redis is away.
    const instances = await pair(2);
    const runIds = await postWhileRedisAway(instances);
    expect(runIds.length).toBeGreaterThanOrEqual(3);
    for (const id of runIds)
      expect(await waitForRun(instances[1].url, id, undefined, 'a final state', 30_000)).toMatchObject({
        status: 'completed',
      });
    await checkServes(instances);
  }, 120_000);
});
