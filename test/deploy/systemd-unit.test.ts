/**
 * deploy/hubos.service without systemd: the unit is read, the app installed where its
 * WorkingDirectory says (moved into a temporary folder, as every path the unit names), its
 * EnvironmentFile (deploy/hubos.env, filled in) and Environment= given, and its ExecStart line run
 * as is, as an unprivileged account with no capability and no new privileges (User=,
 * CapabilityBoundingSet=, NoNewPrivileges=). It serves, runs `bash` in bubblewrap, and exits 0 on
 * its KillSignal, which Restart=on-failure leaves stopped.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, npm, packedHubos } from '../helpers/packed-hubos.ts';
import { ROOT, run, tempDir } from '../helpers/run.ts';
import { env, nodeFor, serverAccount, writeApp } from './app.ts';
import { type Started, startServer } from './start-server.ts';
import { parseEnvironment, parseEnvironmentFile, parseUnit, type Unit } from './systemd-unit.ts';

const UNIT_TEXT = readFileSync(join(ROOT, 'deploy/hubos.service'), 'utf8');
const ENV_FILE = readFileSync(join(ROOT, 'deploy/hubos.env'), 'utf8');
const KEY = 'unit-test-key-0123456789abcdef';
const owner = serverAccount();

let dir: string;
let unit: Unit;
let service: Record<string, string[]>;
let server: Started | undefined;

/** The unit with every path it names moved under `dir`, and /usr/bin/node the Node of the tests. */
function moved(text: string, nodeBin: string): string {
  return text
    .replaceAll('/usr/bin/node', join(nodeBin, 'node'))
    .replaceAll('/opt/hubos-app', join(dir, 'opt/hubos-app'))
    .replaceAll('/etc/hubos/', join(dir, 'etc/hubos/'))
    .replaceAll('/var/cache/hubos', join(dir, 'var/cache/hubos'));
}

const one = (key: string) => {
  const values = service[key] ?? [];
  expect(values, key).toHaveLength(1);
  return values[0]!;
};

beforeAll(async () => {
  const tarball = await packedHubos();
  dir = await tempDir('hubos-unit-');
  await chmod(dir, 0o755);
  const nodeBin = await nodeFor(dir);
  unit = parseUnit(moved(UNIT_TEXT, nodeBin));
  service = unit.Service ?? {};
  await writeFile(join(dir, 'hubos.service'), moved(UNIT_TEXT, nodeBin));

  // The install the unit's header describes: the app in place, owned by root, `npm ci --omit=dev`,
  // and the store and the workspace the only folders of the service's user.
  const source = join(dir, 'src/my-agents');
  await writeApp(source, tarball);
  const app = one('WorkingDirectory');
  await mkdir(app, { recursive: true });
  for (const name of ['package.json', 'package-lock.json', 'agent.config.ts'])
    await cp(join(source, name), join(app, name));
  expectOk(await npm(['ci', '--omit=dev'], app, env()), 'npm ci --omit=dev');
  for (const path of [join(app, '.hubos'), join(app, 'workspace'), join(dir, 'var/cache/hubos')]) {
    await mkdir(path, { recursive: true });
    await run('chown', [`${owner.uid}:${owner.gid}`, path], { cwd: dir });
  }
  // The env file as the operator fills it in, with a free port for the test.
  const filled = ENV_FILE.replace(/^HUBOS_API_KEYS=$/m, `HUBOS_API_KEYS=${KEY}`).replace(
    /^PORT=3000$/m,
    'PORT=0',
  );
  await mkdir(join(dir, 'etc/hubos'), { recursive: true });
  await writeFile(one('EnvironmentFile'), filled, { mode: 0o600 });
}, 600_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('deploy/hubos.service', () => {
  it('runs as a user of its own, restarts on failure, and leaves bubblewrap what it needs', () => {
    expect(one('User')).toBe('hubos');
    expect(one('Restart')).toBe('on-failure');
    expect(one('KillSignal')).toBe('SIGTERM');
    expect(Number.parseInt(one('TimeoutStopSec'), 10)).toBeGreaterThan(10); // shutdownTimeoutMs, and more
    expect(one('NoNewPrivileges')).toBe('yes');
    expect(one('CapabilityBoundingSet')).toBe('');
    expect(one('ProtectSystem')).toBe('strict');
    expect(one('ReadWritePaths').split(' ')).toEqual([
      join(one('WorkingDirectory'), '.hubos'),
      join(one('WorkingDirectory'), 'workspace'),
    ]);
    // Each of these takes namespaces, syscalls or a fresh /proc away from bubblewrap (see the unit).
    for (const key of [
      'RestrictNamespaces',
      'PrivateUsers',
      'SystemCallFilter',
      'ProtectKernelTunables',
      'ProtectKernelLogs',
      'ProtectProc',
      'ProcSubset',
    ])
      expect(service[key], key).toBeUndefined();
  });

  it.skipIf(!existsSync('/usr/bin/systemd-analyze'))(
    'systemd-analyze verify finds nothing to say',
    async () => {
      const verify = await run('systemd-analyze', ['verify', join(dir, 'hubos.service')], { cwd: dir });
      expect(verify.stderr).toBe('');
      expect(verify.code).toBe(0);
    },
  );

  it('its ExecStart line serves on loopback with the env file’s keys, and runs bash in bubblewrap', async () => {
    const execStart = one('ExecStart');
    expect(execStart).not.toMatch(/["'%$\\]/); // split on spaces below as systemd does: nothing to quote or expand
    // EnvironmentFile= is read after Environment=, and wins.
    const serviceEnv = {
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      HOME: join(dir, 'var/lib/hubos'),
      ...parseEnvironment(service.Environment ?? []),
      ...parseEnvironmentFile(readFileSync(one('EnvironmentFile'), 'utf8')),
    };
    // User=, CapabilityBoundingSet= and NoNewPrivileges=, as systemd applies them before exec.
    const asService = execFileSync('id', ['-u']).toString().trim() === '0';
    const command = asService
      ? [
          'setpriv',
          `--reuid=${owner.uid}`,
          `--regid=${owner.gid}`,
          '--clear-groups',
          '--bounding-set=-all',
          '--no-new-privs',
          '--',
          ...execStart.split(/\s+/),
        ]
      : execStart.split(/\s+/);
    server = await startServer(command, { cwd: one('WorkingDirectory'), env: serviceEnv });
    expect(server.output()).toContain('HubOS listening on http://127.0.0.1:');
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await fetch(`${base}/api/agents`)).status).toBe(401);
    const response = await fetch(`${base}/api/agents/assistant/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: '/bash {"command": "echo made > note.txt && id -u"}' }),
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as {
      toolCalls: { name: string; ok: boolean; output: { exitCode: number; stdout: string } }[];
    };
    expect(result.toolCalls[0]).toMatchObject({ name: 'bash', ok: true, output: { exitCode: 0 } });
    expect(Number(result.toolCalls[0]!.output.stdout.trim())).toBe(owner.uid);
    const app = one('WorkingDirectory');
    expect(statSync(join(app, 'workspace/note.txt')).uid).toBe(owner.uid);
    expect(existsSync(join(app, '.hubos/hubos.db'))).toBe(true);
    // CacheDirectory= and XDG_CACHE_HOME: the compile cache is kept where the service may write.
    expect(existsSync(join(dir, 'var/cache/hubos/hubos/compile-cache'))).toBe(true);
  });

  it('stops on its KillSignal with exit code 0, so Restart=on-failure leaves it stopped', async () => {
    expect(await server!.stop(one('KillSignal') as NodeJS.Signals)).toBe(0);
  });
});
