/**
 * deploy/Dockerfile, replayed without a Docker engine: its stages are read, the build's install
 * steps run in a fresh folder on an app that depends on the packed HubOS, and the image's CMD is
 * started as is, as an unprivileged account that owns only the image's volumes. It serves, runs a
 * `bash` command in bubblewrap, answers its HEALTHCHECK, and stops on its STOPSIGNAL.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packedHubos } from '../helpers/packed-hubos.ts';
import { ROOT, run, tempDir } from '../helpers/run.ts';
import { env, nodeFor, serverAccount, writeApp } from './app.ts';
import { type ReplayedImage, replayImage } from './replay-image.ts';
import { type Started, startServer } from './start-server.ts';

const DOCKERFILE = join(ROOT, 'deploy/Dockerfile');
const KEY = 'deploy-test-key-0123456789abcdef';
const owner = serverAccount();

let dir: string;
let image: ReplayedImage;
let runtimeEnv: NodeJS.ProcessEnv;
let server: Started | undefined;

beforeAll(async () => {
  const tarball = await packedHubos();
  dir = await tempDir('hubos-dockerfile-');
  await chmod(dir, 0o755);
  // The context and each stage's /app are as deep in the tree: the lockfile's relative path to
  // the tarball (the registry's stand-in) holds in both.
  const context = join(dir, 'home/me/my-agents');
  await writeApp(context, tarball);
  await mkdir(join(dir, 'image'));
  image = await replayImage({ dockerfile: DOCKERFILE, context, root: join(dir, 'image'), owner, env: env() });
  const home = join(dir, 'image/runtime/home', image.user);
  await mkdir(home, { recursive: true });
  await chmod(home, 0o700);
  await run('chown', [`${owner.uid}:${owner.gid}`, home], { cwd: dir });
  const bin = await nodeFor(dir);
  // `docker run -e PORT=0 -e HUBOS_API_KEYS=…`: the image's ENV, a free port and a key.
  runtimeEnv = {
    ...env(),
    ...image.env,
    PATH: `${bin}${delimiter}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
    HOME: home,
    PORT: '0',
    HUBOS_API_KEYS: KEY,
  };
}, 600_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('deploy/Dockerfile', () => {
  it('builds in stages and runs as a user of its own, with what the server needs stated', () => {
    expect(image.stages.map((stage) => stage.name)).toEqual(['deps', 'runtime']);
    expect(image.stages.every((stage) => stage.base.startsWith('node:24-'))).toBe(true);
    expect(image.user).not.toBe('root');
    expect(image.env).toMatchObject({ NODE_ENV: 'production', PORT: '3000' });
    expect(image.expose).toEqual([image.env.PORT]);
    expect(image.stopSignal).toBe('SIGTERM');
    expect(image.volumes.map((path) => path.slice(image.workdir.length))).toEqual(['/.hubos', '/workspace']);
    // What the replay does not do on this machine: install bubblewrap and add the user. Both stand
    // here as the machine's bubblewrap and the unprivileged account the server runs as.
    expect(image.systemSteps).toHaveLength(2);
    expect(image.systemSteps[0]).toMatch(/apt-get install .*\bbubblewrap\b/);
    expect(image.systemSteps[1]).toMatch(new RegExp(`^useradd .*\\b${image.user}$`));
    expect(existsSync('/usr/bin/bwrap')).toBe(true);
  });

  it('installs the app without its secrets, its install or its data, and gives the user only the volumes', () => {
    const app = image.workdir;
    expect(existsSync(join(app, 'node_modules/hubos/dist/bin/hubos.js'))).toBe(true);
    expect(existsSync(join(app, 'agent.config.ts'))).toBe(true);
    expect(existsSync(join(app, '.env'))).toBe(false);
    expect(existsSync(join(app, '.hubos/hubos.db'))).toBe(false);
    for (const volume of image.volumes) expect(statSync(volume).uid).toBe(owner.uid);
    expect(statSync(join(app, 'agent.config.ts')).uid).toBe(process.getuid?.());
  });

  it('its CMD refuses to listen beyond loopback without API keys', async () => {
    const { HUBOS_API_KEYS: _, ...keyless } = runtimeEnv;
    await expect(startServer(image.cmd, { cwd: image.workdir, env: keyless, owner })).rejects.toThrow(
      /refusing to listen on 0\.0\.0\.0 without API keys/,
    );
  });

  it('its CMD serves with a key, runs bash in the sandbox, and writes only the volumes', async () => {
    server = await startServer(image.cmd, { cwd: image.workdir, env: runtimeEnv, owner });
    const base = `http://127.0.0.1:${server.port}`;
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect((await fetch(`${base}/api/agents`)).status).toBe(401);
    const response = await fetch(`${base}/api/agents/assistant/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        input: '/bash {"command": "echo made > note.txt; id -u; cat /proc/1/cmdline"}',
      }),
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as {
      toolCalls: { name: string; ok: boolean; output: { exitCode: number; stdout: string } }[];
    };
    expect(result.toolCalls[0]).toMatchObject({ name: 'bash', ok: true, output: { exitCode: 0 } });
    const [uid, init] = result.toolCalls[0]!.output.stdout.split('\n');
    expect(Number(uid)).toBe(owner.uid);
    // PID 1 in the command's own namespace is the sandbox's, not the server.
    expect(init).not.toContain('hubos.js');
    expect(readFileSync(join(image.workdir, 'workspace/note.txt'), 'utf8')).toBe('made\n');
    expect(existsSync(join(image.workdir, '.hubos/hubos.db'))).toBe(true);
  });

  it('its HEALTHCHECK passes while the server runs, and it stops cleanly on its STOPSIGNAL', async () => {
    const check = () =>
      run(image.healthcheck[0]!, image.healthcheck.slice(1), {
        cwd: image.workdir,
        env: { ...runtimeEnv, PORT: String(server!.port) },
      });
    expect((await check()).code).toBe(0);
    expect(await server!.stop(image.stopSignal as NodeJS.Signals)).toBe(0);
    expect((await check()).code).toBe(1);
  });
});
