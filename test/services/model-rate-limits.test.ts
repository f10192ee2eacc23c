// Model rate limits shared by two kernels on one Redis: the concurrency slots and the per-minute
// windows live on the bus, so every instance of a service waits its turn.
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Bus } from '../../core/bus/bus.ts';
import { LocalBus } from '../../core/bus/local.ts';
import { RedisBus } from '../../core/bus/redis.ts';
import type { Kernel, LanguageModel, ModelChunk } from '../../core/index.ts';
import { bootKernel } from '../../testing/index.ts';
import { REDIS_URL, uniqueName } from './env.ts';

const PREFIX = uniqueName('model_rate_limits');
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

afterAll(async () => {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${PREFIX}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([
  ['local', async (): Promise<Bus> => new LocalBus()],
  ['redis', async (): Promise<Bus> => RedisBus.open(REDIS_URL, { prefix: `${PREFIX}_bus` })],
])('Bus.acquire on the %s bus', (_name, open) => {
  it('gives at most `limit` slots, takes one back on release, and frees an expired one', async () => {
    const bus = await open();
    closing.push(() => bus.close());
    const key = uniqueName('sem');
    const a = await bus.acquire(key, 2, 60_000);
    const b = await bus.acquire(key, 2, 150);
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(await bus.acquire(key, 2, 60_000)).toBeUndefined();
    await bus.release(key, a!);
    const c = await bus.acquire(key, 2, 60_000);
    expect(c).toBeDefined();
    expect(await bus.acquire(key, 2, 60_000)).toBeUndefined();
    // `b` was held for 150 ms only: an instance that died frees its slot.
    await sleep(250);
    expect(await bus.acquire(key, 2, 60_000)).toBeDefined();
  });

  it('keeps a long slot when a shorter one is taken after it', async () => {
    const bus = await open();
    closing.push(() => bus.close());
    const key = uniqueName('sem');
    expect(await bus.acquire(key, 2, 60_000)).toBeDefined();
    expect(await bus.acquire(key, 2, 100)).toBeDefined();
    await sleep(250);
    // The short one expired; the long one is still held: one slot is free, not two.
    expect(await bus.acquire(key, 2, 60_000)).toBeDefined();
    expect(await bus.acquire(key, 2, 60_000)).toBeUndefined();
  });

  it('counts hits by amount in one window', async () => {
    const bus = await open();
    closing.push(() => bus.close());
    const key = uniqueName('tpm');
    expect((await bus.hit(key, 60_000, 120)).count).toBe(120);
    expect((await bus.hit(key, 60_000, 30)).count).toBe(150);
    expect((await bus.hit(key, 60_000)).count).toBe(151);
  });
});

/** A model of provider `slow` that stays open a while, counting streams at once across kernels. */
function slowModel(seen: { now: number; max: number; calls: number }): LanguageModel {
  return {
    provider: 'slow',
    modelId: 'm',
    async *stream(): AsyncGenerator<ModelChunk> {
      seen.calls++;
      seen.max = Math.max(seen.max, ++seen.now);
      try {
        await sleep(40);
        yield { type: 'text-delta', delta: 'ok' };
        yield { type: 'finish', finishReason: 'stop' };
      } finally {
        seen.now--;
      }
    },
  };
}

describe('rateLimits shared by two kernels on one Redis', () => {
  it('lets one call of the provider stream at a time over both kernels', async () => {
    const seen = { now: 0, max: 0, calls: 0 };
    const kernels: Kernel[] = [];
    for (let i = 0; i < 2; i++) {
      const kernel = await bootKernel({
        config: {
          bus: { driver: 'redis', url: REDIS_URL, prefix: `${PREFIX}_kernels` },
          rateLimits: { slow: { concurrency: 1 } },
          agents: { helper: { description: 'answers', model: slowModel(seen) } },
        },
      });
      kernels.push(kernel);
      closing.push(() => kernel.close());
    }
    const runs = kernels.flatMap((kernel) => [1, 2, 3].map(() => kernel.agent('helper').run('hi')));
    const results = await Promise.all(runs);
    expect(results.map((r) => r.text)).toEqual(Array(6).fill('ok'));
    expect(seen).toMatchObject({ calls: 6, max: 1, now: 0 });
  });

  it('without the limit, the same runs overlap (the test can fail)', async () => {
    const seen = { now: 0, max: 0, calls: 0 };
    const kernel = await bootKernel({
      config: {
        bus: { driver: 'redis', url: REDIS_URL, prefix: `${PREFIX}_free` },
        agents: { helper: { description: 'answers', model: slowModel(seen) } },
      },
    });
    closing.push(() => kernel.close());
    await Promise.all([1, 2, 3].map(() => kernel.agent('helper').run('hi')));
    expect(seen.max).toBeGreaterThan(1);
  });
});
