/**
 * Queue latency of the run engine, from a queued run's creation to its start, at p50/p99: POST
 * /api/agents/:name/run?async=true, then the run record's `startedAt - createdAt` (its writes, the
 * news of it on the bus and the claim of its row), on `hubos serve` with PostgreSQL and Redis
 * against SQLite and the local bus. Skips when PostgreSQL or Redis is unreachable.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { CAVEAT, Deployment, percentile, withServices } from './scale-services.ts';

interface Latency {
  p50: number;
  p99: number;
}

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
  const RUNS = 150;
  const RUNS_PER_SECOND = 30;

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
