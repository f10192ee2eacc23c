import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { DATABASE_URL, REDIS_URL, uniqueName } from '../env.ts';
import { pollUntil } from './poll.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HUBOS_BIN = join(ROOT, 'bin/hubos.ts');
export const INSTANCES_CONFIG = join(ROOT, 'test/services/fixtures/instances/agent.config.ts');

export interface InstanceOptions {
  /** How many queued runs it runs at once (`server.maxConcurrentRuns`, default 4). */
  maxRuns?: number;
  /** A name for failure messages (`A`, `B`…). */
  name?: string;
}

/** One `hubos serve` process of the service, with what it printed. */
export interface ServeProcess {
  readonly name: string;
  readonly url: string;
  /** The Redis key prefix of its bus (`bus.prefix`): its channels are `<prefix>:msg:<name>`. */
  readonly prefix: string;
  readonly pid: number;
  readonly child: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  readonly exited: Promise<number | string>;
  /** Whether its instance id (`<host>-<pid>-<hex>`) names this process. */
  owns(instanceId: string | undefined): boolean;
  /** Still running. */
  readonly alive: boolean;
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (graceful stop), SIGKILL after `graceMs`, then waits for the exit. */
  stop(graceMs?: number): Promise<void>;
}

/** Waits for a line the fixture's tools print (stdout has its own pipe: it may come after the HTTP answer). */
export function printed(instance: ServeProcess, line: string, timeoutMs = 10_000): Promise<string> {
  return pollUntil(
    `instance ${instance.name} to print "${line}"`,
    () => instance.output.stdout,
    (out) => out.includes(line),
    { timeoutMs, intervalMs: 20 },
  );
}

/** The pid an instance id names: ids are `<hostname>-<pid>-<6 hex>`. */
export function pidOfInstance(instanceId: string): number | undefined {
  const match = /-(\d+)-[0-9a-f]{6}$/.exec(instanceId);
  return match ? Number(match[1]) : undefined;
}

/**
 * The instances of one test file: one PostgreSQL schema and one Redis prefix that only they use,
 * dropped and deleted by `cleanup()`.
 */
export class Cluster {
  readonly schema = uniqueName('hubos_instances');
  readonly prefix = uniqueName('hubos_instances');
  readonly leaseMs: number;
  readonly instances: ServeProcess[] = [];
  readonly #workspace = mkdtempSync(join(tmpdir(), 'hubos-instances-'));
  #count = 0;

  constructor(options: { leaseMs?: number } = {}) {
    this.leaseMs = options.leaseMs ?? 1_200;
  }

  /** Starts `hubos serve --port 0` on the fixture config and resolves once it listens. */
  async start(options: InstanceOptions = {}): Promise<ServeProcess> {
    const name = options.name ?? String.fromCharCode(65 + this.#count);
    this.#count++;
    const child = spawn(
      process.execPath,
      [HUBOS_BIN, 'serve', '--config', INSTANCES_CONFIG, '--port', '0', '--host', '127.0.0.1'],
      {
        cwd: this.#workspace,
        env: {
          ...process.env,
          NODE_ENV: 'test',
          HUBOS_API_KEYS: '',
          HUBOS_INSTANCES_DATABASE_URL: DATABASE_URL,
          HUBOS_INSTANCES_SCHEMA: this.schema,
          HUBOS_INSTANCES_REDIS_URL: REDIS_URL,
          HUBOS_INSTANCES_PREFIX: this.prefix,
          HUBOS_INSTANCES_LEASE_MS: String(this.leaseMs),
          HUBOS_INSTANCES_MAX_RUNS: String(options.maxRuns ?? 4),
          HUBOS_INSTANCES_WORKSPACE: this.#workspace,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output = { stdout: '', stderr: '' };
    child.stdout!.on('data', (data: Buffer) => {
      output.stdout += data;
    });
    child.stderr!.on('data', (data: Buffer) => {
      output.stderr += data;
    });
    let exitedWith: number | string | undefined;
    const exited = new Promise<number | string>((resolve) =>
      child.on('exit', (code, signal) => {
        exitedWith = code ?? signal ?? 'unknown';
        resolve(exitedWith);
      }),
    );
    const pid = child.pid!;
    const listening = () => /HubOS listening on (\S+)/.exec(output.stdout)?.[1];
    const instance: ServeProcess = {
      name,
      url: '',
      prefix: this.prefix,
      pid,
      child,
      output,
      exited,
      owns: (id) => id !== undefined && pidOfInstance(id) === pid,
      get alive() {
        return exitedWith === undefined;
      },
      async kill() {
        if (exitedWith === undefined) child.kill('SIGKILL');
        await exited;
      },
      async stop(graceMs = 15_000) {
        if (exitedWith !== undefined) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      },
    };
    this.instances.push(instance);
    await pollUntil(
      `instance ${name} to listen`,
      () => listening() ?? exitedWith,
      (value) => value !== undefined,
      { timeoutMs: 30_000, intervalMs: 50 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${this.describe(instance)}`);
    });
    const url = listening();
    if (!url)
      throw new Error(`instance ${name} exited (${exitedWith}) before listening\n${this.describe(instance)}`);
    (instance as { url: string }).url = url;
    return instance;
  }

  /** The live instance running `instanceId`'s runs. */
  byInstanceId(instanceId: string | undefined): ServeProcess | undefined {
    return this.instances.find((instance) => instance.owns(instanceId));
  }

  get live(): ServeProcess[] {
    return this.instances.filter((instance) => instance.alive);
  }

  /** What each instance printed: for failure messages. */
  describe(only?: ServeProcess): string {
    return (only ? [only] : this.instances)
      .map(
        (instance) =>
          `--- instance ${instance.name} (pid ${instance.pid}${instance.alive ? '' : ', exited'}) ${instance.url}\n` +
          `stdout:\n${tail(instance.output.stdout)}\nstderr:\n${tail(instance.output.stderr)}`,
      )
      .join('\n');
  }

  /** Stops every instance, drops the schema, deletes the prefix's Redis keys and the workspace. */
  async cleanup(): Promise<void> {
    await Promise.all(this.instances.map((instance) => instance.stop()));
    const errors: unknown[] = [];
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    try {
      await pollUntil('PostgreSQL for cleanup', () => admin.connect().then(() => true), Boolean, {
        timeoutMs: 30_000,
        intervalMs: 500,
      });
      await admin.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`);
    } catch (error) {
      errors.push(error);
    } finally {
      await admin.end().catch(() => undefined);
    }
    try {
      await deleteKeys(this.prefix);
    } catch (error) {
      errors.push(error);
    }
    rmSync(this.#workspace, { recursive: true, force: true });
    if (errors.length > 0) throw new AggregateError(errors, 'cleaning up the instances test failed');
  }
}

/** How many connections are subscribed to a bus channel (`PUBSUB NUMSUB`), e.g. `runs:cancel`. */
export async function subscribers(prefix: string, channel: string): Promise<number> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    const reply = (await redis.pubsub('NUMSUB', `${prefix}:msg:${channel}`)) as [string, number];
    return Number(reply[1]);
  } finally {
    redis.disconnect();
  }
}

/** Deletes every Redis key under `<prefix>:`. */
export async function deleteKeys(prefix: string, url = REDIS_URL): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 3 });
  redis.on('error', () => undefined);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

function tail(text: string, lines = 60): string {
  const all = text.split('\n');
  return all.length > lines ? `…\n${all.slice(-lines).join('\n')}` : text;
}
