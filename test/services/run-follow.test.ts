// Following runs across instances on a real Redis: a follower reads from its cursor, the followers
// of one instance share one reader connection, and a run's end reaches them through its log.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { Bus } from '../../core/bus/bus.ts';
import { LocalBus } from '../../core/bus/local.ts';
import { RedisBus } from '../../core/bus/redis.ts';
import { RunEvents, type RunLogEntry } from '../../core/runs/run-events.ts';
import type { RunRecord } from '../../core/runs/run-record.ts';
import { REDIS_URL, uniqueName } from './env.ts';
import { deleteKeys } from './helpers/instances.ts';

const PREFIX = uniqueName('hubos_follow_test');
const opened: Bus[] = [];
const admin = new Redis(REDIS_URL);

async function openRedis(): Promise<RedisBus> {
  const bus = await RedisBus.open(REDIS_URL, { prefix: PREFIX });
  opened.push(bus);
  return bus;
}

afterAll(async () => {
  await Promise.all(opened.map((bus) => bus.close()));
  admin.disconnect();
  await deleteKeys(PREFIX, REDIS_URL);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

function record(id: string, status: RunRecord['status']): RunRecord {
  return { id, agent: 'a', status, createdAt: new Date().toISOString() };
}

/** Follows a run in the background, counting the reads of its record. */
function follow(events: RunEvents, id: string, afterSeq: number, current: () => RunRecord | undefined) {
  const entries: RunLogEntry[] = [];
  const controller = new AbortController();
  const counted = { reads: 0 };
  const done = (async () => {
    const follows = events.follow({
      id,
      afterSeq,
      signal: controller.signal,
      current: async () => {
        counted.reads++;
        return current();
      },
    });
    for await (const entry of follows) entries.push(entry);
  })();
  return { entries, done, controller, counted };
}

/** Bytes Redis has sent to all its clients: what reading a log costs, whoever else is connected. */
async function bytesSent(): Promise<number> {
  const info = await admin.info('stats');
  return Number(/total_net_output_bytes:(\d+)/.exec(info)![1]);
}

/** This suite's connections to Redis (each is named after the bus prefix). */
async function connections(): Promise<number> {
  const list = (await admin.client('LIST')) as string;
  return list.split('\n').filter((line) => line.includes(` name=${PREFIX} `)).length;
}

describe('following runs on the Redis bus', () => {
  it('reads from the cursor: a follower after seq 1990 of 2000 is sent the last ten, not the log', async () => {
    const writer = new RunEvents(await openRedis(), 60_000);
    const reader = new RunEvents(await openRedis(), 60_000);
    const id = uniqueName('run');
    const padding = 'x'.repeat(2_000);
    for (let seq = 1; seq <= 2_000; seq++)
      writer.append(id, { seq, event: { type: 'text-delta', runId: id, step: 0, delta: padding } });
    await waitFor(async () => (await reader.lastSeq(id)) === 2_000, 'the events on the bus');

    const before = await bytesSent();
    let status: RunRecord['status'] = 'running';
    const following = follow(reader, id, 1_990, () => record(id, status));
    await waitFor(() => following.entries.length === 10, 'the last ten events');
    status = 'completed';
    writer.end(id, record(id, 'completed'));
    await following.done;
    const sent = (await bytesSent()) - before;

    expect(following.entries.slice(0, 10).map((entry) => 'seq' in entry && entry.seq)).toEqual([
      1991, 1992, 1993, 1994, 1995, 1996, 1997, 1998, 1999, 2000,
    ]);
    expect(following.entries.at(-1)).toMatchObject({ end: { id, status: 'completed' } });
    // The whole log is over 4 MB; the ten events and the end about 21 kB (the rest: this test's INFO).
    expect(sent).toBeLessThan(500_000);
    // The end is after the last event: a run resumed elsewhere numbers on from there.
    expect(await reader.lastSeq(id)).toBe(2_000);
    expect(await reader.lastSeq(uniqueName('run'))).toBe(0);
  });

  it('serves 200 followers of one instance on one reader connection, and ends them through the log', async () => {
    const writer = new RunEvents(await openRedis(), 60_000);
    const reader = new RunEvents(await openRedis(), 60_000);
    const ids = Array.from({ length: 150 }, () => uniqueName('run'));
    const before = await connections();
    // 150 runs with one follower each, and one run with 50 more.
    const followers = [...ids, ...ids.slice(0, 50).map(() => ids[0]!)].map((id) =>
      follow(reader, id, 0, () => record(id, 'running')),
    );
    await sleep(200);
    for (const id of ids) writer.append(id, { seq: 1, event: { type: 'step-start', runId: id, step: 0 } });
    await waitFor(() => followers.every((f) => f.entries.length === 1), 'every follower to hear its event');
    expect(await connections()).toBeLessThanOrEqual(before + 1);

    const started = Date.now();
    for (const id of ids) writer.end(id, record(id, 'completed'));
    await Promise.all(followers.map((f) => f.done));
    // Ended by the log, not by a look at the record: each read it once, when it started.
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const f of followers) {
      expect(f.entries.at(-1)).toMatchObject({ end: { status: 'completed' } });
      expect(f.counted.reads).toBe(1);
    }
    expect(await connections()).toBeLessThanOrEqual(before + 1);
  });

  it('lets a slow follower catch up with what the shared reader passed', async () => {
    const writer = new RunEvents(await openRedis(), 60_000);
    const bus = await openRedis();
    const id = uniqueName('run');
    const fast = follow(new RunEvents(bus, 60_000), id, 0, () => record(id, 'running'));
    const seen: number[] = [];
    const slow = (async () => {
      const follows = new RunEvents(bus, 60_000).follow({
        id,
        afterSeq: 0,
        current: async () => record(id, 'running'),
      });
      for await (const entry of follows) {
        if ('end' in entry) return;
        seen.push(entry.seq);
        await sleep(50);
      }
    })();
    for (let seq = 1; seq <= 40; seq++) {
      writer.append(id, { seq, event: { type: 'step-start', runId: id, step: seq } });
      await sleep(5);
    }
    writer.end(id, record(id, 'completed'));
    await Promise.all([fast.done, slow]);
    expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(fast.entries.length).toBe(41);
  });
});

describe.each([
  { name: 'local', open: async (): Promise<Bus> => new LocalBus() },
  { name: 'redis', open: openRedis },
])('following an ended run ($name bus)', ({ open }) => {
  it('gives the end from the record at once when the log is gone', async () => {
    const events = new RunEvents(await open(), 60_000);
    const id = uniqueName('run');
    const started = Date.now();
    const following = follow(events, id, 0, () => record(id, 'completed'));
    await following.done;
    expect(following.entries).toMatchObject([{ end: { id, status: 'completed' } }]);
    expect(following.counted.reads).toBe(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('gives the kept events after the cursor, then the logged end, without looking at the record again', async () => {
    const bus = await open();
    const events = new RunEvents(bus, 60_000);
    const id = uniqueName('run');
    for (let seq = 1; seq <= 3; seq++)
      events.append(id, { seq, event: { type: 'step-start', runId: id, step: seq } });
    events.end(id, record(id, 'failed'));
    await waitFor(async () => (await bus.last(`run:${id}:events`))?.id === '3-1', 'the end on the bus');
    const following = follow(events, id, 1, () => record(id, 'failed'));
    await following.done;
    expect(following.entries.map((entry) => ('seq' in entry ? entry.seq : entry.end.status))).toEqual([
      2,
      3,
      'failed',
    ]);
    expect(following.counted.reads).toBe(1);
  });
});
