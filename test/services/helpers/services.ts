import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { DATABASE_URL, REDIS_URL } from '../env.ts';
import { pollUntil, sleep } from './poll.ts';

// Restarts of the machine's PostgreSQL and Redis services (../shared/DESIGN.md §6b): each brings the
// service back in a `finally` and waits until it answers, whatever failed on the way.

const run = promisify(execFile);

const redisAddress = () => {
  const url = new URL(REDIS_URL);
  return { host: url.hostname || '127.0.0.1', port: url.port || '6379' };
};

const pgCluster = () => {
  const versions = readdirSync('/etc/postgresql');
  if (versions.length !== 1)
    throw new Error(`expected one PostgreSQL version in /etc/postgresql, found ${versions}`);
  return versions[0]!;
};

/** Whether PostgreSQL answers a query now. */
export async function postgresAnswers(url = DATABASE_URL): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Whether Redis answers PING now. */
export async function redisAnswers(): Promise<boolean> {
  const { host, port } = redisAddress();
  try {
    const { stdout } = await run('redis-cli', ['-h', host, '-p', port, 'ping'], { timeout: 2_000 });
    return stdout.trim() === 'PONG';
  } catch {
    return false;
  }
}

/** Starts PostgreSQL if it does not answer, and waits until it does. */
export async function ensurePostgres(): Promise<void> {
  if (await postgresAnswers()) return;
  await run('pg_ctlcluster', ['--skip-systemctl-redirect', pgCluster(), 'main', 'start'], {
    timeout: 60_000,
  }).catch(
    () => undefined, // already starting: the poll below says whether it came up
  );
  await pollUntil('PostgreSQL to answer', postgresAnswers, Boolean, { timeoutMs: 60_000, intervalMs: 200 });
}

/** Starts Redis if it does not answer, and waits until it does. */
export async function ensureRedis(): Promise<void> {
  if (await redisAnswers()) return;
  await pollUntil(
    'Redis to answer',
    async () => {
      if (await redisAnswers()) return true;
      // A start while the old server still holds the port fails: tried again at the next poll.
      await startRedis().catch(() => undefined);
      return redisAnswers();
    },
    Boolean,
    { timeoutMs: 60_000, intervalMs: 300 },
  );
}

function startRedis() {
  const { port } = redisAddress();
  return run(
    'redis-server',
    ['--daemonize', 'yes', '--bind', '127.0.0.1', '-::1', '--port', port, '--save', '', '--appendonly', 'no'],
    { timeout: 10_000 },
  );
}

/** Restarts PostgreSQL (fast shutdown: sessions are cut) and resolves once it answers, with how long it took. */
export async function restartPostgres(): Promise<number> {
  const started = Date.now();
  try {
    await run('pg_ctlcluster', ['--skip-systemctl-redirect', pgCluster(), 'main', 'restart'], {
      timeout: 60_000,
    });
  } finally {
    await ensurePostgres();
  }
  return Date.now() - started;
}

/**
 * Stops PostgreSQL, calls `during` (requests made while it is away), keeps it away until `awayMs`
 * have passed since it stopped, then starts it and resolves once it answers. It is started again
 * whatever `during` did; resolves with what `during` returned.
 */
export async function postgresAwayFor<T>(awayMs: number, during: () => Promise<T>): Promise<T> {
  let stoppedAt = Date.now();
  try {
    await run('pg_ctlcluster', ['--skip-systemctl-redirect', pgCluster(), 'main', 'stop'], {
      timeout: 60_000,
    });
    stoppedAt = Date.now();
    const result = await during();
    // The outage itself: how long the service is away is what is being tested.
    await sleep(Math.max(0, awayMs - (Date.now() - stoppedAt)));
    return result;
  } finally {
    await ensurePostgres();
  }
}

/** As postgresAwayFor, for Redis: stopped without saving (it comes back empty), then started again. */
export async function redisAwayFor<T>(awayMs: number, during: () => Promise<T>): Promise<T> {
  const { host, port } = redisAddress();
  let stoppedAt = Date.now();
  try {
    await run('redis-cli', ['-h', host, '-p', port, 'shutdown', 'nosave'], { timeout: 10_000 }).catch(
      () => undefined,
    );
    await pollUntil('Redis to stop', redisAnswers, (answers) => !answers, {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    stoppedAt = Date.now();
    const result = await during();
    await sleep(Math.max(0, awayMs - (Date.now() - stoppedAt)));
    return result;
  } finally {
    await ensureRedis();
  }
}

/**
 * Stops Redis without saving (what it held is gone, as after a crash), starts it again and resolves
 * once it answers, with how long it was away.
 */
export async function restartRedis(): Promise<number> {
  const started = Date.now();
  const { host, port } = redisAddress();
  try {
    // The server closes the connection as it goes: redis-cli may report that as an error.
    await run('redis-cli', ['-h', host, '-p', port, 'shutdown', 'nosave'], { timeout: 10_000 }).catch(
      () => undefined,
    );
    await pollUntil('Redis to stop', redisAnswers, (answers) => !answers, {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    await startRedis();
  } finally {
    await ensureRedis();
  }
  return Date.now() - started;
}
