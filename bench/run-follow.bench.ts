/**
 * Following runs across instances: instance A runs 1,000 runs, instance B follows all of them
 * (`engine.follow`, as GET /api/runs/:id/events does). Measured on B: the Redis connections its bus
 * holds, the run-record reads its followers make per second (store queries) while the runs report
 * an event every 2 s and then while they are quiet (waiting on a tool or an approval), and how long
 * after the runs are told to end its followers hear it. PostgreSQL store, Redis bus. Skips when
 * PostgreSQL or Redis is unreachable.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { RedisBus } from '../core/bus/redis.ts';
import { Instance } from '../core/instance.ts';
import { LOCAL } from '../core/principal.ts';
import { RunEngine } from '../core/runs/run-engine.ts';
import { PostgresStore } from '../core/store/postgres.ts';
import {
  CAVEAT,
  DATABASE_URL,
  deleteRedisKeys,
  dropSchema,
  percentile,
  REDIS_URL,
  uniqueName,
  withServices,
} from './scale-services.ts';

const RUNS = Number(process.env.HUBOS_BENCH_FOLLOWERS ?? 1_000);
const EVENT_EVERY_MS = 2_000;
const MEASURE_MS = 15_000;
const LEASE_MS = 15_000;

/** The Redis connections named after `prefix` (every connection of a bus carries its prefix). */
async function connections(redis: Redis, prefix: string): Promise<number> {
  const list = (await redis.client('LIST')) as string;
  return list.split('\n').filter((line) => line.includes(` name=${prefix} `)).length;
}

async function instance(store: PostgresStore, prefix: string) {
  const bus = await RedisBus.open(REDIS_URL, { prefix });
  const self = new Instance(store, LEASE_MS);
  await self.start();
  const engine = new RunEngine({ store, bus, instance: self, resolveAgent: () => undefined });
  return { bus, self, engine };
}

await withServices('Run follow', { postgres: true, redis: true }, async () => {
  const schema = uniqueName('runfollow');
  const prefix = uniqueName('hubos_runfollow');
  const storeA = await PostgresStore.open(DATABASE_URL, { schema });
  const storeB = await PostgresStore.open(DATABASE_URL, { schema });
  const admin = new Redis(REDIS_URL);
  const finish = new AbortController();
  const quiet = new AbortController();
  const leave = new AbortController();
  const a = await instance(storeA, prefix);
  const b = await instance(storeB, prefix);
  try {
    // B's record reads: what its followers ask the store.
    const table = await b.engine.table();
    const get = table.get.bind(table);
    let reads = 0;
    table.get = (id) => {
      reads++;
      return get(id);
    };

    const ids: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const record = await a.engine.record(
        { name: 'bench', principal: LOCAL },
        async ({ runId, onEvent }) => {
          for (let step = 0; !quiet.signal.aborted; step++) {
            onEvent({ type: 'text-delta', runId, step, delta: 'x' });
            await sleep(EVENT_EVERY_MS, undefined, { signal: quiet.signal }).catch(() => undefined);
          }
          await sleep(3_600_000, undefined, { signal: finish.signal }).catch(() => undefined);
        },
      );
      ids.push(record.id);
    }
    const before = await connections(admin, prefix);

    let endedAt = 0;
    const heard: number[] = [];
    const followers = ids.map(async (id) => {
      for await (const entry of b.engine.follow(id, 0, leave.signal))
        if ('end' in entry) heard.push(performance.now() - endedAt);
    });
    await sleep(2_000);
    const during = await connections(admin, prefix);
    const readsPerSecond = async () => {
      reads = 0;
      const started = performance.now();
      await sleep(MEASURE_MS);
      return (reads * 1000) / (performance.now() - started);
    };
    const busy = await readsPerSecond();
    quiet.abort();
    const silent = await readsPerSecond();

    endedAt = performance.now();
    finish.abort();
    const deadline = Date.now() + 30_000;
    while (heard.length < RUNS && Date.now() < deadline) await sleep(50);
    leave.abort();
    await Promise.all(followers);

    console.log(
      `Run follow (${RUNS} runs on instance A, each followed from instance B; PostgreSQL store, Redis bus; caveat: ${CAVEAT}):\n` +
        `  Redis connections of both buses: ${before} before the followers, ${during} while following (${during - before} more)\n` +
        `  run-record reads by B's followers (store queries), over ${MEASURE_MS / 1000} s: ${busy.toFixed(0)}/s while each run reports an event every ${EVENT_EVERY_MS / 1000} s, ${silent.toFixed(0)}/s while they are quiet\n` +
        `  followers that heard the end: ${heard.length}/${RUNS}, ` +
        `p50 ${percentile(heard, 50).toFixed(0)} ms, p99 ${percentile(heard, 99).toFixed(0)} ms after the runs were told to end`,
    );
  } finally {
    quiet.abort();
    finish.abort();
    leave.abort();
    await Promise.all([a.engine.drain(5_000), b.engine.drain(5_000)]).catch(() => undefined);
    await Promise.all([a.self.stop(), b.self.stop()]);
    await Promise.all([a.bus.close(), b.bus.close()]);
    await Promise.all([storeA.close(), storeB.close()]);
    admin.disconnect();
    await deleteRedisKeys(prefix).catch(() => undefined);
    await dropSchema(schema).catch(() => undefined);
  }
});
