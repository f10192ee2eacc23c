/**
 * What the scale-out benchmarks share: the PostgreSQL and Redis they run on (HUBOS_BENCH_DATABASE_URL
 * and HUBOS_BENCH_REDIS_URL, else the local defaults), whether those answer, names of their own,
 * `hubos serve` processes on bench/scale-fixture.config.ts, autocannon and percentiles.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
// The services suite's own probes and clean-up, pointed at the benchmark's URLs.
import { deleteKeys } from '../test/services/helpers/instances.ts';
import { postgresAnswers } from '../test/services/helpers/services.ts';

export const DATABASE_URL =
  process.env.HUBOS_BENCH_DATABASE_URL ??
  process.env.HUBOS_TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL =
  process.env.HUBOS_BENCH_REDIS_URL ?? process.env.HUBOS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const HUBOS_BIN = join(ROOT, 'bin/hubos.ts');
const FIXTURE = join(ROOT, 'bench/scale-fixture.config.ts');

export const CORES = availableParallelism();
export const CAVEAT = `PostgreSQL, Redis, the processes measured and the load all share this machine's ${CORES} cores`;

/** A schema or key prefix no other run uses (PostgreSQL schema rules: lowercase, digits, _). */
export function uniqueName(base: string): string {
  return `${base}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Why PostgreSQL or Redis cannot be used now, or undefined when both answer. */
export async function servicesUnreachable(needs: {
  postgres?: boolean;
  redis?: boolean;
}): Promise<string | undefined> {
  const missing: string[] = [];
  if (needs.postgres && !(await postgresAnswers(DATABASE_URL)))
    missing.push(`PostgreSQL (${redact(DATABASE_URL)})`);
  if (needs.redis && !(await redisAnswers())) missing.push(`Redis (${REDIS_URL})`);
  return missing.length > 0 ? `${missing.join(' and ')} unreachable` : undefined;
}

async function redisAnswers(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/**
 * Runs a benchmark that needs the services: skipped with one line when they are unreachable, and
 * reported in one line (not thrown, so `npm run bench` goes on) when they went away mid-run.
 */
export async function withServices(
  name: string,
  needs: { postgres?: boolean; redis?: boolean },
  bench: () => Promise<void>,
): Promise<void> {
  const before = await servicesUnreachable(needs);
  if (before) {
    console.log(`${name}: skipped (${before})`);
    return;
  }
  try {
    await bench();
  } catch (error) {
    // The outage may be over by now (the store retries, the cleanup waits): its error says it too.
    const after = await servicesUnreachable(needs);
    if (!after && !lostConnection(error)) throw error;
    console.log(
      `${name}: interrupted (${after ?? 'PostgreSQL or Redis went away'} mid-run: ${(error as Error)?.message ?? error})`,
    );
  }
}

function lostConnection(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    const text = `${String(e.code ?? '')} ${String(e.message ?? '')}`;
    if (
      /STORE_FAILED|BUS_FAILED|ECONNREFUSED|ECONNRESET|Connection terminated|Connection is closed/.test(text)
    )
      return true;
  }
  return false;
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** Drops a PostgreSQL schema (and everything in it), trying again for 30 s while PostgreSQL is away. */
export async function dropSchema(schema: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await queryPostgres(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** Runs one query on PostgreSQL and returns its rows. */
export async function queryPostgres<R extends pg.QueryResultRow>(sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Deletes every Redis key under `<prefix>:`. */
export const deleteRedisKeys = (prefix: string): Promise<void> => deleteKeys(prefix, REDIS_URL);

/** One `hubos serve` process. */
export interface Instance {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Where instances keep their state: `postgres` (a schema and a Redis prefix of their own, shared by
 * every instance started from it) or `sqlite` (a file and the local bus: one instance).
 */
export class Deployment {
  readonly kind: 'postgres' | 'sqlite';
  readonly schema = uniqueName('hubos_bench');
  readonly prefix = uniqueName('hubos_bench');
  readonly instances: Instance[] = [];
  readonly #stops: (() => Promise<void>)[] = [];
  readonly #dir = mkdtempSync(join(tmpdir(), 'hubos-scale-bench-'));

  constructor(kind: 'postgres' | 'sqlite') {
    this.kind = kind;
  }

  /** Starts `hubos serve --port 0` on the fixture and resolves with it once it listens. */
  async start(): Promise<Instance> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      HUBOS_API_KEYS: '',
      HUBOS_SCALE_WORKSPACE: this.#dir,
      HUBOS_SCALE_SQLITE: join(this.#dir, 'hubos.db'),
    };
    // The fixture picks PostgreSQL and Redis from these: a SQLite deployment must not inherit them.
    for (const name of [
      'HUBOS_DATABASE_URL',
      'HUBOS_REDIS_URL',
      'HUBOS_SCALE_DATABASE_URL',
      'HUBOS_SCALE_REDIS_URL',
    ])
      delete env[name];
    if (this.kind === 'postgres') {
      Object.assign(env, {
        HUBOS_SCALE_DATABASE_URL: DATABASE_URL,
        HUBOS_SCALE_SCHEMA: this.schema,
        HUBOS_SCALE_REDIS_URL: REDIS_URL,
        HUBOS_SCALE_PREFIX: this.prefix,
      });
    }
    const child = spawn(
      process.execPath,
      [HUBOS_BIN, 'serve', '--config', FIXTURE, '--port', '0', '--host', '127.0.0.1'],
      { cwd: this.#dir, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    let listening: string | undefined;
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    let alive = true;
    void exited.then(() => {
      alive = false;
    });
    const stop = async () => {
      if (!alive) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    };
    // Stopped by cleanup() even if it never listens.
    this.#stops.push(stop);
    const url = await new Promise<string>((resolve, reject) => {
      const read = (data: Buffer) => {
        // Kept only until it listens; read on (and dropped) after, so the pipe never fills.
        if (listening) return;
        output += data;
        listening = /HubOS listening on (\S+)/.exec(output)?.[1];
        if (listening) resolve(listening);
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      void exited.then(() =>
        reject(new Error(`hubos serve exited before listening:\n${output.slice(-2_000)}`)),
      );
      setTimeout(
        () => reject(new Error(`hubos serve did not listen within 30 s:\n${output.slice(-2_000)}`)),
        30_000,
      ).unref();
    });
    const instance: Instance = { url, child, stop };
    this.instances.push(instance);
    return instance;
  }

  /** Stops its instances and removes what they stored: the schema, the Redis keys, the folder. */
  async cleanup(): Promise<void> {
    await Promise.all(this.#stops.map((stop) => stop()));
    if (this.kind === 'postgres') {
      await dropSchema(this.schema).catch((error) =>
        console.error(`could not drop schema ${this.schema}: ${error}`),
      );
      await deleteRedisKeys(this.prefix).catch((error) =>
        console.error(`could not delete Redis keys ${this.prefix}:*: ${error}`),
      );
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

export { autocannon, type LoadResult } from './autocannon.ts';

/** The `p`-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}
