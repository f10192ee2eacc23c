import { describe, expect, it } from 'vitest';
import { type Bus, LocalBus } from '../../../core/index.ts';
import { HubOS, type HubOSOptions } from '../../../plugins/hubos/hubos.ts';
import { FixedWindows } from '../../../plugins/hubos/middleware/fixed-window.ts';
import { SharedWindows } from '../../../plugins/hubos/middleware/shared-windows.ts';

/** A LocalBus that says it is shared: servers in one process counting together, as on Redis. */
function sharedBus(bus: Bus = new LocalBus(), overrides: Partial<Bus> = {}): Bus {
  return new Proxy(bus, {
    get: (target, property) => {
      if (property === 'shared') return true;
      const value = Reflect.get(overrides, property) ?? Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Two servers (instances) on one bus; requests go through `app.request` (client address `unknown`). */
async function twoServers(bus: Bus, options: HubOSOptions) {
  const servers = [new HubOS({ bus, ...options }), new HubOS({ bus, ...options })];
  for (const server of servers) await server.init();
  const get = (i: number, key?: string) =>
    servers[i]!.app.request('/api/agents', key ? { headers: { authorization: `Bearer ${key}` } } : {});
  return { servers, get };
}

describe('rate limits on a shared bus', () => {
  it('hold across instances: the (max+1)th request over either answers 429 with Retry-After', async () => {
    const { get } = await twoServers(sharedBus(), { rateLimit: { windowMs: 60_000, max: 3 } });
    const statuses = [];
    for (const i of [0, 1, 0]) statuses.push((await get(i)).status);
    expect(statuses).toEqual([200, 200, 200]);
    const limited = await get(1);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await limited.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({
      code: 'RATE_LIMITED',
      message: 'too many requests: at most 3 per 60000 ms',
    });
    expect((await get(0)).status).toBe(429);
  });

  it('stay per instance on a local bus', async () => {
    const { get } = await twoServers(new LocalBus(), { rateLimit: { windowMs: 60_000, max: 2 } });
    const statuses = [];
    for (const i of [0, 0, 1, 1, 0]) statuses.push((await get(i)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it('count wrong keys across instances: past maxAuthFailures even the right key waits', async () => {
    const key = 'right-key-0123456789abcdef';
    const { get } = await twoServers(sharedBus(), {
      apiKeys: [key],
      rateLimit: { windowMs: 60_000, max: 100, maxAuthFailures: 2 },
    });
    expect((await get(0, 'wrong-1')).status).toBe(401);
    expect((await get(1, 'wrong-2')).status).toBe(401);
    // Server 0 learns of the limit from the bus with the third wrong key.
    const third = await get(0, 'wrong-3');
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await get(0, key)).status).toBe(429);
    expect((await get(1, key)).status).toBe(429);
  });

  it('fail open when the bus fails: requests are counted per instance, logged once', async () => {
    const warnings: string[] = [];
    const failing = sharedBus(new LocalBus(), { hit: () => Promise.reject(new Error('Redis is down')) });
    const windows = new SharedWindows(failing, 'rate', 60_000, 2, new FixedWindows(60_000, 2), (m) =>
      warnings.push(m),
    );
    expect(await windows.hit('a')).toBeUndefined();
    expect(await windows.hit('a')).toBeUndefined();
    expect(await windows.hit('a')).toBeGreaterThan(0);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('Redis is down');

    // Over HTTP: a failing bus lets requests through rather than answer 500.
    const { get } = await twoServers(failing, { rateLimit: { windowMs: 60_000, max: 5 } });
    expect((await get(0)).status).toBe(200);
    expect((await get(1)).status).toBe(200);
  });

  it('fail open when the bus hangs (Redis away: commands wait for it)', async () => {
    const hanging = sharedBus(new LocalBus(), { hit: () => new Promise(() => {}) });
    const { get } = await twoServers(hanging, { rateLimit: { windowMs: 60_000, max: 5 } });
    const started = Date.now();
    expect((await get(0)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
