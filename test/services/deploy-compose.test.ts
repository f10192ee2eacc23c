/**
 * deploy/compose.yaml without a Docker engine: the file is read with a YAML parser, its variables
 * interpolated as compose does, and the hubos service started as compose would start it — the
 * Dockerfile's build replayed (see test/deploy), its CMD run with the service's environment —
 * against the machine's PostgreSQL and Redis standing for the postgres and redis services (their
 * host names rewritten to these). It serves, and keeps its data in PostgreSQL and its bus in Redis.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { driverPackages, env, nodeFor, serverAccount, writeApp } from '../deploy/app.ts';
import { type ReplayedImage, replayImage } from '../deploy/replay-image.ts';
import { type Started, startServer } from '../deploy/start-server.ts';
import { packedHubos } from '../helpers/packed-hubos.ts';
import { ROOT, tempDir } from '../helpers/run.ts';
import { DATABASE_URL, REDIS_URL, uniqueName } from './env.ts';

const run = promisify(execFile);

interface Service {
  build?: { context: string; dockerfile: string };
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  security_opt?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  init?: boolean;
}

const compose = parse(readFileSync(join(ROOT, 'deploy/compose.yaml'), 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const KEY = 'compose-test-key-0123456789abcdef';
const schema = uniqueName('compose');
const prefix = uniqueName('compose');
const owner = serverAccount();

/** Compose's interpolation: `${NAME}`, `${NAME:-default}`, `${NAME:?error}`. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest = '') => {
    const set = vars[name];
    if (set) return set;
    if (kind === '?') throw new Error(`required variable ${name} is missing a value: ${rest}`);
    return kind === '-' ? rest : '';
  });
}

const environmentOf = (service: Service, vars: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), vars)]),
  );

let dir: string;
let image: ReplayedImage;
let server: Started | undefined;

beforeAll(async () => {
  const tarball = await packedHubos();
  dir = await tempDir('hubos-compose-');
  await chmod(dir, 0o755);
  const context = join(dir, 'home/me/my-agents');
  // The app's own config names only its schema and key prefix (so the test shares PostgreSQL and
  // Redis with others): the URLs, and with them the drivers, come from compose's environment.
  await writeApp(
    context,
    tarball,
    `import { defineConfig } from 'hubos';

export default defineConfig({
  store: { schema: '${schema}' },
  bus: { prefix: '${prefix}' },
  agents: { assistant: { instructions: 'You are a concise assistant.' } },
});
`,
    // The optional packages of the PostgreSQL store and the Redis bus, as the deploying guide tells
    // such an app to add them.
    driverPackages(),
  );
  await mkdir(join(dir, 'image'));
  const build = compose.services.hubos!.build!;
  image = await replayImage({
    dockerfile: join(ROOT, 'deploy', build.dockerfile),
    context,
    root: join(dir, 'image'),
    owner,
    env: env(),
  });
}, 600_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
  const { hostname, port } = new URL(REDIS_URL);
  const keys = (
    await run('redis-cli', ['-h', hostname, '-p', port || '6379', '--scan', '--pattern', `${prefix}*`])
  ).stdout
    .split('\n')
    .filter(Boolean);
  if (keys.length > 0) await run('redis-cli', ['-h', hostname, '-p', port || '6379', 'del', ...keys]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('deploy/compose.yaml', () => {
  it('builds hubos from the Dockerfile and starts it once PostgreSQL and Redis are healthy', () => {
    const { hubos, postgres, redis } = compose.services;
    expect(hubos?.build).toEqual({ context: '.', dockerfile: 'Dockerfile' });
    expect(hubos?.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    expect(postgres?.healthcheck?.test.join(' ')).toContain('pg_isready');
    expect(redis?.healthcheck?.test.join(' ')).toContain('redis-cli ping');
    expect(hubos?.init).toBe(true);
    expect(Number.parseInt(hubos?.stop_grace_period ?? '', 10)).toBeGreaterThan(10);
    expect(hubos?.security_opt).toEqual([
      'seccomp=unconfined',
      'apparmor=unconfined',
      'systempaths=unconfined',
    ]);
    // Its volume is the Dockerfile's workspace; the store is PostgreSQL's volume.
    expect(hubos?.volumes).toEqual([
      `workspace:${image.volumes[1]!.slice(join(dir, 'image/runtime').length)}`,
    ]);
    expect(Object.keys(compose.volumes).sort()).toEqual(['postgres', 'workspace']);
  });

  it('refuses to start without the secrets it needs, naming them', () => {
    expect(() => environmentOf(compose.services.hubos!, {})).toThrow(/POSTGRES_PASSWORD/);
    expect(() => environmentOf(compose.services.hubos!, { POSTGRES_PASSWORD: 'pw' })).toThrow(
      /HUBOS_API_KEYS/,
    );
  });

  it('the hubos service serves with its environment and keeps its data in PostgreSQL and its bus in Redis', async () => {
    const vars = { POSTGRES_PASSWORD: 'secret-of-the-env-file', HUBOS_API_KEYS: KEY };
    const hubosEnv = environmentOf(compose.services.hubos!, vars);
    const postgresEnv = environmentOf(compose.services.postgres!, vars);
    const databaseUrl = new URL(hubosEnv.HUBOS_DATABASE_URL!);
    const redisUrl = new URL(hubosEnv.HUBOS_REDIS_URL!);
    // The URL names the postgres service and the user, password and database it makes.
    expect(databaseUrl.hostname).toBe('postgres');
    expect(redisUrl.hostname).toBe('redis');
    expect([databaseUrl.username, databaseUrl.password, databaseUrl.pathname]).toEqual([
      postgresEnv.POSTGRES_USER,
      postgresEnv.POSTGRES_PASSWORD,
      `/${postgresEnv.POSTGRES_DB}`,
    ]);
    // The machine's PostgreSQL and Redis stand for those services.
    const local = new URL(REDIS_URL);
    redisUrl.hostname = local.hostname;
    redisUrl.port = local.port;

    const command = compose.services.hubos!.command ?? image.cmd;
    const bin = await nodeFor(dir);
    server = await startServer(command, {
      cwd: image.workdir,
      owner,
      env: {
        ...env(),
        ...image.env,
        ...hubosEnv,
        HUBOS_DATABASE_URL: DATABASE_URL,
        HUBOS_REDIS_URL: redisUrl.href,
        PATH: `${bin}${delimiter}/usr/local/bin:/usr/bin:/bin`,
        HOME: join(dir, 'home/me'),
        PORT: '0',
      },
    });
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const response = await fetch(`${base}/api/agents/assistant/run?async=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'hello' }),
    });
    expect(response.status).toBe(202);

    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".hubos_kv`);
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    const { hostname, port } = new URL(REDIS_URL);
    const keys = await run('redis-cli', [
      '-h',
      hostname,
      '-p',
      port || '6379',
      '--scan',
      '--pattern',
      `${prefix}*`,
    ]);
    expect(keys.stdout.trim()).not.toBe('');
    expect(await server.stop('SIGTERM')).toBe(0);
  });
});
