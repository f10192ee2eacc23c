/**
 * What one run of the run route costs, counted rather than timed (so other load on the machine
 * moves it little): the statements an instance on PostgreSQL + Redis sends per run, the Redis
 * commands and writes, and the CPU per run of the instance, its PostgreSQL backends and the Redis
 * server; and the CPU per run of an instance on SQLite and the local bus. The same fixture as
 * scale-out.bench.ts (one instant tool call, then an answer), RUNS runs, 12 at a time, after a
 * warm-up. Counting is bench/count-calls.ts, loaded into the instances. Linux (/proc) only.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { Deployment, type Instance, queryPostgres, REDIS_URL, withServices } from './scale-services.ts';

const RUNS = Number(process.env.HUBOS_BENCH_RUNS ?? 2_000);
const CONCURRENCY = 12;
const COUNTER = fileURLToPath(new URL('./count-calls.ts', import.meta.url));

interface Counts {
  pg: Record<string, number>;
  redis: Record<string, number>;
  redisWrites: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A process's CPU time in ms (user + system), 0 once it is gone. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

async function redisCpuMs(): Promise<number> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true });
  try {
    await redis.connect();
    const info = await redis.info('cpu');
    const seconds = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
    return (seconds('used_cpu_sys') + seconds('used_cpu_user')) * 1000;
  } finally {
    redis.disconnect();
  }
}

async function fire(instance: Instance, runs: number): Promise<void> {
  let left = runs;
  const url = `${instance.url}/api/agents/bench/run`;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"input":"go"}',
        });
        await response.text();
        if (response.status !== 200) throw new Error(`the run route answered ${response.status}`);
      }
    }),
  );
}

async function measure(kind: 'sqlite' | 'postgres', dir: string) {
  const file = join(dir, `${kind}.json`);
  const saved = { NODE_OPTIONS: process.env.NODE_OPTIONS, HUBOS_COUNT_FILE: process.env.HUBOS_COUNT_FILE };
  // Deployment.start passes this process's environment on to `hubos serve`.
  process.env.NODE_OPTIONS = `${saved.NODE_OPTIONS ?? ''} --import ${COUNTER}`;
  process.env.HUBOS_COUNT_FILE = file;
  const deployment = new Deployment(kind);
  try {
    const instance = await deployment.start();
    Object.assign(process.env, saved);
    const counts = async (): Promise<Counts> => {
      instance.child.kill('SIGUSR2');
      await sleep(300);
      return JSON.parse(readFileSync(file, 'utf8')) as Counts;
    };
    await fire(instance, 300);
    await sleep(300);
    const backends =
      kind === 'postgres'
        ? (
            await queryPostgres<{ pid: number }>(
              `SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE '%${deployment.schema}%'`,
            )
          ).map((row) => row.pid)
        : [];
    const cpu = async () => ({
      hubos: cpuMs(instance.child.pid!),
      postgres: backends.reduce((sum, pid) => sum + cpuMs(pid), 0),
      redis: kind === 'postgres' ? await redisCpuMs() : 0,
    });
    const before = await counts();
    const cpuBefore = await cpu();
    await fire(instance, RUNS);
    const cpuAfter = await cpu();
    await sleep(300);
    const after = await counts();
    const delta = (a: Record<string, number>, b: Record<string, number>) =>
      Object.fromEntries(
        Object.keys(b)
          .map((key) => [key, (b[key] ?? 0) - (a[key] ?? 0)] as const)
          .filter(([, n]) => n > 0),
      );
    return {
      pg: delta(before.pg, after.pg),
      redis: delta(before.redis, after.redis),
      redisWrites: after.redisWrites - before.redisWrites,
      cpu: {
        hubos: (cpuAfter.hubos - cpuBefore.hubos) / RUNS,
        postgres: (cpuAfter.postgres - cpuBefore.postgres) / RUNS,
        redis: (cpuAfter.redis - cpuBefore.redis) / RUNS,
      },
    };
  } finally {
    Object.assign(process.env, saved);
    if (saved.NODE_OPTIONS === undefined) delete process.env.NODE_OPTIONS;
    if (saved.HUBOS_COUNT_FILE === undefined) delete process.env.HUBOS_COUNT_FILE;
    await deployment.cleanup();
  }
}

async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hubos-run-cost-'));
  try {
    const shared = await measure('postgres', dir);
    const sqlite = await measure('sqlite', dir);
    const per = (n: number) => (n / RUNS).toFixed(2);
    const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
    const named = Object.entries(shared.pg)
      .filter(([text]) => text.startsWith('[named]'))
      .reduce((total, [, n]) => total + n, 0);
    const ms = (n: number) => n.toFixed(2);
    console.log(
      `Run cost (${RUNS.toLocaleString('en')} runs of the run route, ${CONCURRENCY} at a time): PostgreSQL+Redis ` +
        `${per(sum(shared.pg))} statements per run (${per(named)} named), ${per(sum(shared.redis))} Redis commands ` +
        `in ${per(shared.redisWrites)} writes; CPU per run: HubOS ${ms(shared.cpu.hubos)} ms, its PostgreSQL ` +
        `backends ${ms(shared.cpu.postgres)} ms, Redis ${ms(shared.cpu.redis)} ms (the whole server); ` +
        `SQLite+local bus: HubOS ${ms(sqlite.cpu.hubos)} ms`,
    );
    for (const [text, n] of Object.entries(shared.pg).sort((a, b) => b[1] - a[1]))
      if (n >= RUNS / 100) console.log(`  ${per(n)} per run: ${text}`);
    for (const [name, n] of Object.entries(shared.redis).sort((a, b) => b[1] - a[1]))
      if (n >= RUNS / 100) console.log(`  ${per(n)} per run: Redis ${name}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await withServices('Run cost', { postgres: true, redis: true }, bench);
