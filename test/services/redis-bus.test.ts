import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { Bus, LogEntry } from '../../core/bus/bus.ts';
import { LocalBus } from '../../core/bus/local.ts';
import { logId } from '../../core/bus/log-id.ts';
import { openBus } from '../../core/bus/open-bus.ts';
import { RedisBus } from '../../core/bus/redis.ts';
import { HubosError } from '../../core/errors.ts';
import type { StoreValue } from '../../core/store/store.ts';
import { REDIS_URL, uniqueName } from './env.ts';

const PREFIX = uniqueName('hubos_bus_test');
const opened: Bus[] = [];

/** How a test gets a bus, and a second instance of the same service. */
interface Driver {
  name: string;
  open(): Promise<Bus>;
  /** Another instance of `bus`'s service: the same object for the local bus (one process, one service). */
  peer(bus: Bus): Promise<Bus>;
}

async function openRedis(): Promise<Bus> {
  const bus = await RedisBus.open(REDIS_URL, { prefix: PREFIX });
  opened.push(bus);
  return bus;
}

const drivers: Driver[] = [
  {
    name: 'local',
    open: async () => {
      const bus = new LocalBus();
      opened.push(bus);
      return bus;
    },
    peer: async (bus) => bus,
  },
  { name: 'redis', open: openRedis, peer: openRedis },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Follows in the background: what arrived so far, and the promise of the loop's end. */
function follow(bus: Bus, log: string, after: string | undefined, signal: AbortSignal) {
  const entries: LogEntry[] = [];
  const done = (async () => {
    for await (const entry of bus.follow(log, after, signal)) entries.push(entry);
  })();
  return { entries, done };
}

afterAll(async () => {
  await Promise.all(opened.map((bus) => bus.close()));
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
});

describe.each(drivers)('$name bus', (driver) => {
  describe('publish / subscribe', () => {
    it('delivers to every subscriber of the channel, on every instance', async () => {
      const a = await driver.open();
      const b = await driver.peer(a);
      const channel = uniqueName('chan');
      const got: Record<string, StoreValue[]> = { one: [], two: [], own: [] };
      await b.subscribe(channel, (message) => got.one!.push(message));
      await b.subscribe(channel, (message) => got.two!.push(message));
      await a.subscribe(channel, (message) => got.own!.push(message));

      await a.publish(channel, { n: 1, list: ['x'] });
      await waitFor(() => Object.values(got).every((list) => list.length === 1), 'three deliveries');
      expect(got).toEqual({
        one: [{ n: 1, list: ['x'] }],
        two: [{ n: 1, list: ['x'] }],
        own: [{ n: 1, list: ['x'] }],
      });
      // Each subscriber holds its own copy.
      expect(got.one![0]).not.toBe(got.two![0]);
    });

    it('unsubscribes one handler; the channel goes with the last one', async () => {
      const a = await driver.open();
      const b = await driver.peer(a);
      const channel = uniqueName('chan');
      const marker = uniqueName('marker');
      const one: StoreValue[] = [];
      const two: StoreValue[] = [];
      const marks: StoreValue[] = [];
      const offOne = await b.subscribe(channel, (message) => one.push(message));
      const offTwo = await b.subscribe(channel, (message) => two.push(message));
      await b.subscribe(marker, (message) => marks.push(message));

      await offOne();
      await offOne(); // a second call is harmless
      await a.publish(channel, 'after one left');
      await waitFor(() => two.length === 1, 'the remaining subscriber');
      expect(one).toEqual([]);

      await offTwo();
      await a.publish(channel, 'after both left');
      // Messages from one publisher arrive in order: once the marker is in, the other would be too.
      await a.publish(marker, 'marker');
      await waitFor(() => marks.length === 1, 'the marker');
      expect(two).toEqual(['after one left']);

      const again: StoreValue[] = [];
      await b.subscribe(channel, (message) => again.push(message));
      await a.publish(channel, 'subscribed again');
      await waitFor(() => again.length === 1, 'the new subscriber');
    });

    it('keeps nothing for a later subscriber', async () => {
      const bus = await driver.open();
      const channel = uniqueName('chan');
      await bus.publish(channel, 'too early');
      const got: StoreValue[] = [];
      await bus.subscribe(channel, (message) => got.push(message));
      await bus.publish(channel, 'in time');
      await waitFor(() => got.length === 1, 'the message');
      await sleep(50);
      expect(got).toEqual(['in time']);
    });
  });

  describe('logs', () => {
    it('follows from the start, then live entries, until aborted', async () => {
      const a = await driver.open();
      const b = await driver.peer(a);
      const log = uniqueName('log');
      const first = await a.append(log, { n: 1 });
      await a.append(log, { n: 2 });
      const controller = new AbortController();
      const reading = follow(b, log, undefined, controller.signal);
      await waitFor(() => reading.entries.length === 2, 'the kept entries');
      expect(reading.entries[0]).toEqual({ id: first, entry: { n: 1 } });

      await a.append(log, { n: 3 });
      await waitFor(() => reading.entries.length === 3, 'a live entry');
      expect(reading.entries.map((e) => e.entry)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      controller.abort();
      await reading.done;
    });

    it('follows after an id; a malformed id reads from the start', async () => {
      const bus = await driver.open();
      const log = uniqueName('log');
      const ids = [await bus.append(log, 'a'), await bus.append(log, 'b'), await bus.append(log, 'c')];
      const controller = new AbortController();
      const after = follow(bus, log, ids[0], controller.signal);
      const malformed = follow(bus, log, 'not-an-id', controller.signal);
      await waitFor(() => after.entries.length === 2 && malformed.entries.length === 3, 'both readers');
      expect(after.entries).toEqual([
        { id: ids[1], entry: 'b' },
        { id: ids[2], entry: 'c' },
      ]);
      expect(malformed.entries.map((e) => e.entry)).toEqual(['a', 'b', 'c']);
      controller.abort();
      await Promise.all([after.done, malformed.done]);
    });

    it('numbers entries appended at a position, puts the others after the last, and reads from a cursor', async () => {
      const a = await driver.open();
      const b = await driver.peer(a);
      const log = uniqueName('log');
      expect(await a.last(log)).toBeUndefined();
      expect(await a.append(log, 'first')).toBe('0-1');
      expect(await a.append(log, 'one', { at: 1 })).toBe('1-0');
      expect(await a.append(log, 'three', { at: 3 })).toBe('3-0');
      expect(await b.append(log, 'after three')).toBe('3-1');
      expect(await a.last(log)).toEqual({ id: '3-1', entry: 'after three' });
      // A position not above the last is refused, and the log is unchanged.
      await expect(a.append(log, 'late', { at: 3 })).rejects.toThrow();
      await expect(a.append(log, 'zero', { at: 0 })).rejects.toThrow();
      expect(await b.last(log)).toEqual({ id: '3-1', entry: 'after three' });

      const controller = new AbortController();
      const fromOne = follow(b, log, logId(1), controller.signal);
      const fromTwo = follow(b, log, logId(2), controller.signal);
      await waitFor(() => fromOne.entries.length === 2 && fromTwo.entries.length === 2, 'both readers');
      expect(fromOne.entries.map((e) => e.entry)).toEqual(['three', 'after three']);
      expect(fromTwo.entries.map((e) => e.entry)).toEqual(['three', 'after three']);
      await a.append(log, 'seven', { at: 7 });
      await waitFor(() => fromOne.entries.length === 3 && fromTwo.entries.length === 3, 'the live entry');
      expect(fromTwo.entries.at(-1)).toEqual({ id: '7-0', entry: 'seven' });
      controller.abort();
      await Promise.all([fromOne.done, fromTwo.done]);
    });

    it('ends a waiting follow promptly on abort, and an aborted one at once', async () => {
      const bus = await driver.open();
      const log = uniqueName('log');
      const controller = new AbortController();
      const reading = follow(bus, log, undefined, controller.signal);
      await sleep(100);
      const started = Date.now();
      controller.abort();
      await reading.done;
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(reading.entries).toEqual([]);

      await bus.append(log, 'x');
      const late = follow(bus, log, undefined, controller.signal);
      await late.done;
      expect(late.entries).toEqual([]);
    });

    it('keeps about the last maxLen entries', async () => {
      const bus = await driver.open();
      const log = uniqueName('log');
      for (let n = 0; n < 300; n++) await bus.append(log, { n }, { maxLen: 10 });
      const controller = new AbortController();
      const reading = follow(bus, log, undefined, controller.signal);
      const newest = () => (reading.entries.at(-1)?.entry as { n: number } | undefined)?.n;
      await waitFor(() => newest() === 299, 'the newest entry');
      controller.abort();
      await reading.done;
      // Redis trims whole stream nodes (`MAXLEN ~`): at least maxLen are kept, far fewer than all.
      expect(reading.entries.length).toBeGreaterThanOrEqual(10);
      expect(reading.entries.length).toBeLessThanOrEqual(150);
      expect((reading.entries[0]!.entry as { n: number }).n).toBeGreaterThan(0);
    });

    it('drops an expired log', async () => {
      const bus = await driver.open();
      const log = uniqueName('log');
      await bus.append(log, 'old');
      await bus.expire(log, 50);
      await sleep(200);
      await bus.append(log, 'new');
      const controller = new AbortController();
      const reading = follow(bus, log, undefined, controller.signal);
      await waitFor(() => reading.entries.length === 1, 'the new entry');
      controller.abort();
      await reading.done;
      expect(reading.entries.map((e) => e.entry)).toEqual(['new']);
    });

    it('drops a log whose last append gave it a time to live, after or at a position', async () => {
      const bus = await driver.open();
      const after = uniqueName('log');
      const at = uniqueName('log');
      const kept = uniqueName('log');
      await bus.append(after, 'first');
      await bus.append(after, 'end', { ttlMs: 50 });
      await bus.append(at, 'end', { at: 1, ttlMs: 50 });
      await bus.append(kept, 'end', { ttlMs: 60_000 });
      expect((await bus.last(after))?.entry).toBe('end');
      await sleep(200);
      expect(await bus.last(after)).toBeUndefined();
      expect(await bus.last(at)).toBeUndefined();
      expect((await bus.last(kept))?.entry).toBe('end');
    });
  });

  describe('hit', () => {
    it('counts hits of every instance in a fixed window, then starts a new one', async () => {
      const a = await driver.open();
      const b = await driver.peer(a);
      const key = uniqueName('hits');
      const first = await a.hit(key, 400);
      expect(first.count).toBe(1);
      expect(first.resetMs).toBeGreaterThan(0);
      expect(first.resetMs).toBeLessThanOrEqual(400);
      expect((await a.hit(key, 400)).count).toBe(2);
      const third = await b.hit(key, 400);
      expect(third.count).toBe(3);
      expect(third.resetMs).toBeLessThanOrEqual(first.resetMs);

      await sleep(first.resetMs + 50);
      expect((await b.hit(key, 400)).count).toBe(1);
    });
  });
});

describe('redis bus only', () => {
  it('fails fast with BUS_FAILED when Redis is unreachable, without telling its password', async () => {
    const started = Date.now();
    const error = await RedisBus.open('redis://user:s3cret-pass@127.0.0.1:1/0', { prefix: PREFIX }).catch(
      (e: unknown) => e,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(HubosError.is(error, 'BUS_FAILED')).toBe(true);
    const message = (error as HubosError).message;
    expect(message).toContain('127.0.0.1:1');
    expect(message).toContain('HUBOS_REDIS_URL');
    expect(message).not.toContain('s3cret-pass');
    expect((error as HubosError).status).toBe(503);
  });

  it('works again after its connections drop', async () => {
    const a = await openRedis();
    const b = await openRedis();
    const channel = uniqueName('chan');
    const log = uniqueName('log');
    const messages: StoreValue[] = [];
    await b.subscribe(channel, (message) => messages.push(message));
    const controller = new AbortController();
    const reading = follow(b, log, undefined, controller.signal);
    await a.append(log, 'before');
    await waitFor(() => reading.entries.length === 1, 'the first entry');

    // Every connection of this test's buses (named by the prefix), as if Redis restarted.
    const admin = new Redis(REDIS_URL);
    try {
      const clients = String(await admin.client('LIST'));
      const ids = [...clients.matchAll(/^id=(\d+) .* name=(\S*)/gm)]
        .filter((match) => match[2]!.startsWith(PREFIX))
        .map((match) => match[1]!);
      expect(ids.length).toBeGreaterThan(3);
      for (const id of ids) await admin.client('KILL', 'ID', id);
    } finally {
      admin.disconnect();
    }

    // Pub/sub keeps nothing: publish until the re-subscribed connection hears one.
    const deadline = Date.now() + 10_000;
    while (messages.length === 0 && Date.now() < deadline) {
      await a.publish(channel, 'after');
      await sleep(100);
    }
    expect(messages[0]).toBe('after');
    expect((await a.hit(uniqueName('hits'), 1_000)).count).toBe(1);
    await a.append(log, 'after');
    await waitFor(() => reading.entries.length === 2, 'an entry after the drop');
    controller.abort();
    await reading.done;
  });

  it('is what openBus opens for a redis URL', async () => {
    const bus = await openBus({ url: REDIS_URL, prefix: PREFIX }, {});
    opened.push(bus);
    expect(bus).toBeInstanceOf(RedisBus);
    expect(bus.driver).toBe('redis');
    expect(bus.shared).toBe(true);
    await bus.close();
    await bus.close(); // a second close is harmless
  });
});
