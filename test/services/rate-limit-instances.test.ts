import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../core/index.ts';
import { HubOS, type HubOSOptions } from '../../plugins/hubos/hubos.ts';
import { bootKernel } from '../../testing/index.ts';
import { REDIS_URL, uniqueName } from './env.ts';

const PREFIX = uniqueName('rate_limit_instances');

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

afterAll(async () => {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
});

/** Two HubOS servers, each on its own kernel, one Redis: two instances of one service. */
async function twoServers(test: string, options: HubOSOptions): Promise<string[]> {
  const urls: string[] = [];
  for (let i = 0; i < 2; i++) {
    const kernel: Kernel = await bootKernel({
      config: { bus: { driver: 'redis', url: REDIS_URL, prefix: `${PREFIX}_${test}` } },
    });
    const server = new HubOS({ kernel, port: 0, ...options });
    urls.push(await server.serve());
    closing.push(async () => {
      await server.close();
      await kernel.close();
    });
  }
  return urls;
}

describe('rate limits on Redis', () => {
  it('hold across two servers: the (max+1)th request over either answers 429 with Retry-After', async () => {
    const [a, b] = await twoServers('requests', { rateLimit: { windowMs: 60_000, max: 4 } });
    const statuses = [];
    for (const url of [a, b, b, a]) statuses.push((await fetch(`${url}/api/agents`)).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    const limited = await fetch(`${b}/api/agents`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
    expect((await fetch(`${a}/api/agents`)).status).toBe(429);
  });

  it('let exactly max concurrent requests through over both', async () => {
    const [a, b] = await twoServers('concurrent', { rateLimit: { windowMs: 60_000, max: 10 } });
    const statuses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => fetch(`${i % 2 ? a : b}/api/agents`).then((r) => r.status)),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
  });

  it('count wrong API keys across both servers', async () => {
    const key = 'right-key-0123456789abcdef';
    const [a, b] = await twoServers('keys', { apiKeys: [key], rateLimit: { maxAuthFailures: 2 } });
    const as = (url: string, bearer: string) =>
      fetch(`${url}/api/agents`, { headers: { authorization: `Bearer ${bearer}` } });
    expect((await as(a!, 'wrong-1')).status).toBe(401);
    expect((await as(b!, 'wrong-2')).status).toBe(401);
    expect((await as(a!, 'wrong-3')).status).toBe(429);
    expect((await as(a!, key)).status).toBe(429);
    expect((await as(b!, key)).status).toBe(429);
  });
});
