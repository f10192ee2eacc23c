/**
 * Queue latency, from a job's enqueue to its start, at p50/p99:
 * - the bus alone: `enqueue` → the `work` handler starting, for jobs sent at a steady rate, on the
 *   RedisBus (BullMQ) against the LocalBus (the single-instance default), both in this process;
 * - through a server: POST /api/agents/:name/run?async=true, then the run record's
 *   `startedAt - createdAt` (its writes, the queue and the claim), on `hubos serve` with PostgreSQL
 *   and Redis against SQLite and the local bus.
 * Skips when PostgreSQL or Redis is unreachable.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { Bus } from '../core/bus/bus.ts';
import { LocalBus } from '../core/bus/local.ts';
import { RedisBus } from '../core/bus/redis.ts';
import {
  CAVEAT,
  Deployment,
  deleteRedisKeys,
  percentile,
  REDIS_URL,
  uniqueName,
  withServices,
} from './scale-services.ts';

interface Latency {
  p50: number;
  p99: number;
}

const ms = (value: number) => (value < 10 ? value.toFixed(2) : String(Math.round(value)));
const show = (l: Latency) => `p50 ${ms(l.p50)} ms, p99 ${ms(l.p99)} ms`;
/** Records hold ISO times: whole milliseconds. */
const showWhole = (l: Latency) => `p50 ${l.p50} ms, p99 ${l.p99} ms`;
const summarize = (values: number[]): Latency => ({
  p50: percentile(values, 50),
  p99: percentile(values, 99),
});

/** Calls `send(i)` `count` times, `perSecond` evenly spaced, without waiting for one to finish. */
async function steady(
  count: number,
  perSecond: number,
  send: (i: number) => Promise<unknown>,
): Promise<void> {
  const start = performance.now();
  const sent: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const wait = start + (i * 1000) / perSecond - performance.now();
    if (wait > 0) await sleep(wait);
    sent.push(send(i));
  }
  await Promise.all(sent);
}

/** The bus alone: ms from each `enqueue` call to its handler starting, and how long `enqueue` took. */
async function busLatency(bus: Bus, count: number, perSecond: number) {
  const queue = uniqueName('bench');
  const enqueuedAt = new Map<string, number>();
  const started: number[] = [];
  const enqueueCalls: number[] = [];
  let allStarted!: () => void;
  const done = new Promise<void>((resolve) => {
    allStarted = resolve;
  });
  const stop = await bus.work(
    queue,
    async (job) => {
      started.push(performance.now() - enqueuedAt.get(job.id)!);
      if (started.length === count) allStarted();
    },
    { concurrency: 16 },
  );
  try {
    await steady(count, perSecond, async (i) => {
      const t = performance.now();
      enqueuedAt.set(`job-${i}`, t);
      await bus.enqueue(queue, { id: `job-${i}`, data: { i } });
      enqueueCalls.push(performance.now() - t);
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      done,
      new Promise((_, reject) => {
        timer = setTimeout(
          () =>
            reject(new Error(`${bus.driver} bus: ${started.length} of ${count} jobs started within 30 s`)),
          30_000,
        );
      }),
    ]).finally(() => clearTimeout(timer));
  } finally {
    await stop();
  }
  return { start: summarize(started), enqueue: summarize(enqueueCalls) };
}

/** Through a server: `startedAt - createdAt` of runs posted with ?async=true at a steady rate. */
async function serverLatency(url: string, count: number, perSecond: number): Promise<Latency> {
  const ids: string[] = [];
  await steady(count, perSecond, async () => {
    const response = await fetch(`${url}/api/agents/bench/run?async=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"input":"go"}',
    });
    const body = (await response.json()) as { runId?: string };
    if (response.status !== 202 || !body.runId)
      throw new Error(`?async=true answered ${response.status}: ${JSON.stringify(body)}`);
    ids.push(body.runId);
  });
  const waits: number[] = [];
  const deadline = Date.now() + 30_000;
  for (const id of ids) {
    for (;;) {
      const record = (await (await fetch(`${url}/api/runs/${id}`)).json()) as {
        status: string;
        createdAt: string;
        startedAt?: string;
      };
      if (record.startedAt && record.status !== 'queued') {
        waits.push(Date.parse(record.startedAt) - Date.parse(record.createdAt));
        break;
      }
      if (Date.now() > deadline) throw new Error(`run ${id} still ${record.status} after 30 s`);
      await sleep(50);
    }
  }
  return summarize(waits);
}

async function bench(): Promise<void> {
  const JOBS = 500;
  const JOBS_PER_SECOND = 250;
  const RUNS = 150;
  const RUNS_PER_SECOND = 30;

  const prefix = uniqueName('hubos_bench_queue');
  const redis = await RedisBus.open(REDIS_URL, { prefix, leaseMs: 5_000 });
  const local = new LocalBus();
  let direct: {
    redis: Awaited<ReturnType<typeof busLatency>>;
    local: Awaited<ReturnType<typeof busLatency>>;
  };
  try {
    // A short warm-up of each (connections, JIT), then the measured jobs.
    await busLatency(redis, 50, JOBS_PER_SECOND);
    await busLatency(local, 50, JOBS_PER_SECOND);
    direct = {
      redis: await busLatency(redis, JOBS, JOBS_PER_SECOND),
      local: await busLatency(local, JOBS, JOBS_PER_SECOND),
    };
  } finally {
    await redis.close();
    await local.close();
    await deleteRedisKeys(prefix).catch((error) =>
      console.error(`could not delete Redis keys ${prefix}:*: ${error}`),
    );
  }
  console.log(
    `Queue latency, enqueue → handler start, ${JOBS} jobs at ${JOBS_PER_SECOND}/s in one process: ` +
      `RedisBus ${show(direct.redis.start)} (the enqueue call itself ${show(direct.redis.enqueue)}); ` +
      `LocalBus ${show(direct.local.start)}; Redis/local p50 ${(direct.redis.start.p50 / direct.local.start.p50).toFixed(0)}x`,
  );

  const shared = new Deployment('postgres');
  const sqlite = new Deployment('sqlite');
  try {
    const [onShared, onSqlite] = await Promise.all([shared.start(), sqlite.start()]);
    await serverLatency(onShared!.url, 20, RUNS_PER_SECOND);
    await serverLatency(onSqlite!.url, 20, RUNS_PER_SECOND);
    const viaShared = await serverLatency(onShared!.url, RUNS, RUNS_PER_SECOND);
    const viaSqlite = await serverLatency(onSqlite!.url, RUNS, RUNS_PER_SECOND);
    console.log(
      `Queue latency through a server, ?async=true → record startedAt - createdAt, ${RUNS} runs at ${RUNS_PER_SECOND}/s ` +
        `(1 instance each): PostgreSQL+Redis ${showWhole(viaShared)}; SQLite+local bus ${showWhole(viaSqlite)}; ` +
        `PostgreSQL+Redis adds ${viaShared.p50 - viaSqlite.p50} ms at p50, ${viaShared.p99 - viaSqlite.p99} ms at p99 ` +
        `(caveat: ${CAVEAT})`,
    );
  } finally {
    await Promise.all([shared.cleanup(), sqlite.cleanup()]);
  }
}

await withServices('Queue latency', { postgres: true, redis: true }, bench);
