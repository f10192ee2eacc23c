/**
 * The `bash` tool's sandbox, probed from inside the way it was attacked: capabilities, mounts,
 * host sockets, the server's environment, the network, and processes that outlive the call — as
 * the user running the tests (root in CI) and as `nobody`. Needs Debian's bubblewrap
 * (`apt-get install -y bubblewrap`); fails, never skips, without it. The probes that need root
 * (hiding bwrap in a mount namespace, writing to /run) skip, saying so, when not run as root.
 */
import { spawnSync } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { homedir, tmpdir, userInfo } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HubosError } from '../../core/index.ts';
import { type BashOptions, bashTool, checkSandbox } from '../../plugins/builtin-tools/bash/index.ts';
import { invokeTool } from '../../testing/index.ts';
import { childScripts } from '../fixtures/bash/child-scripts.ts';
import { outputOf, tempWorkspace } from '../fixtures/bash/workspace.ts';
import { killAll, marker, processesWith } from '../plugins/builtin-tools/bash/processes.ts';

const BWRAP = '/usr/bin/bwrap';
const MISSING_BWRAP = `the bash sandbox tests need Debian's bubblewrap at ${BWRAP}, which is missing: install it with "apt-get update && apt-get install -y bubblewrap" (.ci/run does)`;
const SANDBOXED: BashOptions = { sandbox: { kind: 'bwrap' } };
const ROOT = process.getuid?.() === 0;
const NOT_ROOT =
  'needs root (CI runs as root): only root can make the mount namespace or write where this probe looks';
const REPO = realpathSync(join(import.meta.dirname, '../..'));
const SECRET = `sk-server-secret-${process.pid}`;

let ws: ReturnType<typeof tempWorkspace>;
const markers: string[] = [];
beforeEach(() => {
  ws = tempWorkspace();
});
afterEach(() => {
  for (const token of markers.splice(0)) killAll(token);
  ws.remove();
});

async function sandboxed(command: string, options: BashOptions = SANDBOXED, timeout = 20_000) {
  return outputOf(await invokeTool(bashTool(options), { command, timeout }, { sandbox: ws.sandbox }));
}

function newMarker(): string {
  const token = marker();
  markers.push(token);
  return token;
}

/** A Unix socket server on the host that answers like an HTTP server (a docker.sock stand-in). */
async function socketServer(path: string): Promise<Server> {
  rmSync(path, { force: true });
  const server = createServer((socket) =>
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 12\r\nconnection: close\r\n\r\nhost reached'),
  );
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

it('bubblewrap is installed', () => {
  expect(existsSync(BWRAP), MISSING_BWRAP).toBe(true);
});

// Needs no bubblewrap, so it runs (and passes) even where the rest fails.
it('fails the startup check with the install command when bwrap is absent', () => {
  const missing = { sandbox: { kind: 'bwrap', bwrapPath: '/nonexistent/bwrap' } } as const;
  expect(() => checkSandbox(missing)).toThrow(/apt-get install bubblewrap/);
  try {
    checkSandbox(missing);
  } catch (error) {
    expect(HubosError.is(error, 'CONFIG_INVALID')).toBe(true);
  }
});

describe('bash in bubblewrap', () => {
  beforeAll(() => {
    if (!existsSync(BWRAP)) throw new Error(MISSING_BWRAP);
  });

  it('passes the startup check', () => {
    expect(() => checkSandbox(SANDBOXED)).not.toThrow();
    expect(() => checkSandbox({ sandbox: { kind: 'bwrap', network: true } })).not.toThrow();
  });

  it('is the default where bubblewrap works', async () => {
    const output = await sandboxed('grep CapEff /proc/self/status; touch /usr/hubos-escaped', {});
    expect(output.stdout).toBe('CapEff:\t0000000000000000\n');
    expect(output.stderr).toMatch(/Read-only file system/);
  });

  it('runs in the workspace, which is writable', async () => {
    const output = await sandboxed('pwd; echo kept > inside.txt; mkdir -p sub && echo too > sub/file');
    expect(output).toMatchObject({ exitCode: 0, stdout: `${ws.dir}\n`, stderr: '' });
    expect(readFileSync(join(ws.dir, 'inside.txt'), 'utf8')).toBe('kept\n');
    expect(readFileSync(join(ws.dir, 'sub/file'), 'utf8')).toBe('too\n');
  });

  describe(`holds as ${ROOT ? 'root' : 'this user'}`, () => {
    it('has no capability left', async () => {
      const output = await sandboxed('grep -E "^Cap(Eff|Prm|Bnd)" /proc/self/status');
      expect(output.stdout).toBe(
        'CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n',
      );
    });

    it('cannot remount the root writable', async () => {
      const output = await sandboxed('mount -o remount,bind,rw / && echo remounted; touch /hubos-escaped');
      expect(output.stdout).not.toContain('remounted');
      // As an unprivileged user namespace ("permission denied"), or as nobody on a root server.
      expect(output.stderr).toMatch(/permission denied|must be superuser/i);
      expect(output.stderr).toMatch(/Read-only file system/);
      expect(existsSync('/hubos-escaped')).toBe(false);
    });

    it("owns nothing of root's: kernel settings stay unwritable, root-only files unreadable", async () => {
      const before = readFileSync('/proc/sys/kernel/core_pattern', 'utf8');
      const output = await sandboxed(
        'echo hubos-probe > /proc/sys/kernel/core_pattern; echo 1 > /proc/sysrq-trigger; head -c 40 /etc/shadow; id -u',
      );
      expect(readFileSync('/proc/sys/kernel/core_pattern', 'utf8')).toBe(before);
      expect(output.stderr).toMatch(/core_pattern: (Read-only file system|Permission denied)/);
      // Not mounted at all (only the /etc files commands need are), or not readable.
      expect(output.stderr).toMatch(/shadow.*(No such file or directory|Permission denied)/);
      // A root server starts the sandbox as an unprivileged account (nobody), never as host root.
      if (ROOT) expect(output.stdout.trim()).toBe('65534');
    });

    it('cannot make a user namespace of its own to get capabilities back', async () => {
      const output = await sandboxed('unshare --user --map-root-user --mount true && echo nested');
      expect(output.exitCode).not.toBe(0);
      expect(output.stdout).toBe('');
    });
  });

  describe('outside the workspace', () => {
    let outside: string | undefined;
    beforeAll(() => {
      // A host folder the server can write and the sandbox does not hide (/tmp, /var/tmp, the
      // home are hidden): as root /var/lib; another user may have none at all.
      const base = ['/var/lib', '/srv', '/opt'].find((folder) => writable(folder));
      outside = base && realpathSync(mkdtempSync(join(base, 'hubos-outside-')));
    });
    afterAll(() => {
      if (outside) rmSync(outside, { recursive: true, force: true });
    });

    it.each([
      ['a host folder the server can write', () => `echo escaped > ${outside}/file`],
      ['/etc', () => 'touch /etc/hubos-escaped'],
      ['/usr', () => 'touch /usr/hubos-escaped'],
      ['/usr/local/bin', () => 'touch /usr/local/bin/hubos-escaped'],
    ])('cannot write to %s: the host is read-only or not there', async (name, command) => {
      if (name.startsWith('a host folder') && !outside) return; // no such folder for this user
      const output = await sandboxed(command());
      expect(output.exitCode).not.toBe(0);
      // Read-only mount, not there at all (only an allow-list of the host is), or (a root
      // server's sandbox runs as nobody) not its folder to write.
      expect(output.stderr).toMatch(/Read-only file system|No such file or directory|Permission denied/);
    });

    it('leaves the host untouched', () => {
      if (outside) expect(readdirSync(outside)).toEqual([]);
      for (const file of ['/etc/hubos-escaped', '/usr/hubos-escaped', '/usr/local/bin/hubos-escaped'])
        expect(existsSync(file)).toBe(false);
    });

    it('can still read the system (tools, libraries)', async () => {
      const output = await sandboxed('test -r /etc/os-release && command -v ls && ls /usr/lib > /dev/null');
      expect(output.exitCode).toBe(0);
    });

    it('runs everyday commands with only the allow-listed host: coreutils, grep, sed, git, node, npm, pipelines', async () => {
      const tools = ['git', 'node', 'npm'].filter((name) => existsSync(`/usr/bin/${name}`));
      const output = await sandboxed(
        [
          'printf "b\\na\\n" > list.txt && sort list.txt | grep -c a && sed -n 1p list.txt && ls -l list.txt | wc -l',
          'id -un; date +%Y > /dev/null && echo date',
          ...(tools.includes('git')
            ? [
                'git init -q repo && git -C repo -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && echo git',
              ]
            : []),
          ...(tools.includes('node') ? ['node -e "console.log(require(\'os\').cpus().length > 0)"'] : []),
          ...(tools.includes('npm') ? ['npm --version > /dev/null && echo npm'] : []),
        ].join('\n'),
      );
      expect(output.stderr).toBe('');
      expect(output.stdout).toBe(
        `1\nb\n1\n${ROOT ? 'nobody' : userInfo().username}\ndate\n${tools.includes('git') ? 'git\n' : ''}${tools.includes('node') ? 'true\n' : ''}${tools.includes('npm') ? 'npm\n' : ''}`,
      );
    });

    it("gets a private /tmp: the host's is hidden, and what it writes there the host never sees", async () => {
      const hostTmp = realpathSync(mkdtempSync(join(tmpdir(), 'hubos-host-')));
      try {
        const name = `hubos-private-${process.pid}`;
        const output = await sandboxed(`echo hidden > /tmp/${name} && cat /tmp/${name} && ls /tmp`);
        expect(output.exitCode).toBe(0);
        const [content, ...listed] = output.stdout.trim().split('\n');
        expect(content).toBe('hidden');
        // Only its own file and the mount point of the workspace, which lives under /tmp here.
        expect(listed.sort()).toEqual([name, ws.dir.split('/')[2]].sort());
        expect(listed).not.toContain(basename(hostTmp));
        expect(existsSync(join('/tmp', name))).toBe(false);
      } finally {
        rmSync(hostTmp, { recursive: true, force: true });
      }
    });

    it("hides the server's home, cwd and install folder", async () => {
      expect(existsSync(join(REPO, 'package.json'))).toBe(true);
      const output = await sandboxed(
        `ls -A ${homedir()} | wc -l; test -e ${REPO}/package.json && echo repo; test -e ${process.cwd()}/package.json && echo cwd`,
      );
      expect(output.stdout).toBe('0\n');
    });

    it("hides the folders the plugin names: the config file's and the store's", async () => {
      const app = mkdtempSync(join(tmpdir(), 'hubos-app-'));
      try {
        writeFileSync(join(app, 'agent.config.ts'), 'export default { server: { apiKeys: ["secret"] } };');
        const output = await sandboxed(`ls -A ${app} | wc -l; cat ${app}/agent.config.ts`, {
          ...SANDBOXED,
          hide: [app],
        });
        expect(output.stdout).toBe('0\n');
        expect(output.stdout).not.toContain('apiKeys');
      } finally {
        rmSync(app, { recursive: true, force: true });
      }
    });

    it('binds back read-only what sandbox.expose names', async () => {
      const exposed = join(REPO, 'plugins/builtin-tools/bash');
      const options: BashOptions = { sandbox: { kind: 'bwrap', expose: [exposed] } };
      const output = await sandboxed(
        `test -r ${exposed}/options.ts && echo read; touch ${exposed}/x`,
        options,
      );
      expect(output.stdout).toBe('read\n');
      expect(output.stderr).toMatch(/Read-only file system/);
    });
  });

  describe('host Unix sockets', () => {
    const servers: Server[] = [];
    const connections: Socket[] = [];
    const sockets: string[] = [];
    let xdg: string | undefined;
    const savedXdg = process.env.XDG_RUNTIME_DIR;
    beforeAll(async () => {
      sockets.push(join(tmpdir(), `hubos-host-${process.pid}.sock`));
      if (ROOT) {
        sockets.push(`/run/hubos-host-${process.pid}.sock`);
        // An XDG_RUNTIME_DIR outside /run and /tmp is hidden on its own.
        xdg = mkdtempSync('/var/lib/hubos-xdg-');
        chmodSync(xdg, 0o700);
        sockets.push(join(xdg, 'bus'));
        process.env.XDG_RUNTIME_DIR = xdg;
      }
      for (const path of sockets) {
        const server = await socketServer(path);
        server.on('connection', (socket) => connections.push(socket));
        servers.push(server);
      }
    });
    afterAll(async () => {
      for (const socket of connections) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      for (const path of sockets) rmSync(path, { force: true });
      if (xdg) rmSync(xdg, { recursive: true, force: true });
      if (savedXdg === undefined) delete process.env.XDG_RUNTIME_DIR;
      else process.env.XDG_RUNTIME_DIR = savedXdg;
    });

    const curl = (path: string) =>
      `curl -s --max-time 5 --unix-socket ${path} http://host/ ; echo " curl=$?"`;
    const hasCurl = existsSync('/usr/bin/curl');

    it.skipIf(!hasCurl)('are reachable unsandboxed (so the check below means something)', async () => {
      const output = await sandboxed(sockets.map(curl).join('\n'), { sandbox: { kind: 'none' } });
      expect(output.stdout).toBe(`${'host reached curl=0\n'.repeat(sockets.length)}`);
    });

    it('are not visible: /run, /var/run, /tmp, /dev/shm and XDG_RUNTIME_DIR are empty', async () => {
      if (!ROOT) console.warn(`/run and XDG_RUNTIME_DIR sockets not probed: ${NOT_ROOT}`);
      const folders = ['/run', '/var/run', '/dev/shm', ...(xdg ? [xdg] : [])];
      const output = await sandboxed(
        `${folders.map((folder) => `echo "${folder}: $(ls -A ${folder} 2>/dev/null | wc -l)"`).join('; ')}; ls -A /tmp; ${sockets.map((path) => `test -S ${path} && echo "sees ${path}"`).join('; ')}; true`,
      );
      expect(output.stdout).toBe(
        `${folders.map((folder) => `${folder}: 0\n`).join('')}${ws.dir.split('/')[2]}\n`,
      );
    });

    it('are not reachable anywhere outside the workspace: a world-writable socket under /srv', async (context) => {
      if (!ROOT) return context.skip(`a socket under /srv ${NOT_ROOT}`);
      // Not a runtime folder nor one of the server's: only an allow-list of what is mounted keeps it out.
      const folder = mkdtempSync('/srv/hubos-sock-');
      chmodSync(folder, 0o755);
      const path = join(folder, 'service.sock');
      const server = await socketServer(path);
      const mine: Socket[] = [];
      server.on('connection', (socket) => mine.push(socket));
      chmodSync(path, 0o777);
      try {
        const probe = `test -e ${path} && echo "sees it"; ls /srv 2>&1 | head -3; ${curl(path)}`;
        if (hasCurl) {
          const reached = await sandboxed(probe, { sandbox: { kind: 'none' } });
          expect(reached.stdout).toContain('host reached curl=0'); // so the check below means something
        }
        const output = await sandboxed(probe);
        expect(output.stdout).not.toContain('sees it');
        expect(output.stdout).not.toContain('host reached');
        expect(output.stdout).not.toContain(basename(folder));
      } finally {
        for (const socket of mine) socket.destroy();
        await new Promise((resolve) => server.close(resolve));
        rmSync(folder, { recursive: true, force: true });
      }
    });

    it.skipIf(!hasCurl)('cannot be connected to (curl --unix-socket)', async () => {
      const output = await sandboxed(sockets.map(curl).join('\n'));
      expect(output.stdout).not.toContain('host reached');
      expect(output.stdout.match(/curl=7/g)).toHaveLength(sockets.length); // couldn't connect
    });
  });

  describe("the server's environment", () => {
    beforeAll(() => {
      process.env.HUBOS_TEST_SECRET = SECRET;
    });
    afterAll(() => {
      delete process.env.HUBOS_TEST_SECRET;
    });

    it('is out of reach through /proc: a fresh /proc without the server', async () => {
      const output = await sandboxed(
        `cat /proc/${process.pid}/environ 2>&1; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c ${SECRET}`,
      );
      expect(output.stdout).toBe(`cat: /proc/${process.pid}/environ: No such file or directory\n0\n`);
    });

    it('is clean inside too', async () => {
      const output = await sandboxed('env');
      expect(output.stdout).not.toContain(SECRET);
      expect(output.stdout).toContain(`HOME=${ws.dir}\n`);
    });
  });

  describe('network', () => {
    let server: Server;
    let port: number;
    let connections = 0;
    beforeAll(async () => {
      server = createServer((socket) => {
        connections++;
        socket.end('hello from the host\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const connect = () => `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected && head -1 <&3`;

    it('is off: the host server on 127.0.0.1 cannot be reached', async () => {
      const before = connections;
      const output = await sandboxed(connect());
      expect(output.exitCode).not.toBe(0);
      expect(output.stdout).not.toContain('connected');
      expect(output.stderr).toMatch(/Connection refused|Network is unreachable/);
      expect(connections).toBe(before);
    });

    it('has only a loopback interface', async () => {
      const output = await sandboxed("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
      expect(output.stdout).toBe('lo\n');
    });

    it('is shared when network: true (so the check above means something), with the resolver config', async () => {
      const output = await sandboxed(`${connect()}; test -r /etc/resolv.conf && echo resolv`, {
        sandbox: { kind: 'bwrap', network: true },
      });
      expect(output).toMatchObject({ exitCode: 0, stdout: 'connected\nhello from the host\nresolv\n' });
    });
  });

  it('has its own PID namespace: only the sandbox processes are visible', async () => {
    const output = await sandboxed('echo $$; ls /proc | grep -cE "^[0-9]+$"');
    const [shellPid, visible] = output.stdout.trim().split('\n').map(Number);
    expect(shellPid).toBeLessThan(10);
    expect(visible).toBeLessThan(10);
    expect(output.stdout).not.toContain(String(process.pid));
  });

  it('stops every sandboxed process on timeout, before the call returns', async () => {
    const token = newMarker();
    const output = await sandboxed(
      `sleep ${token} & setsid sleep ${token} & echo started; wait`,
      SANDBOXED,
      500,
    );
    expect(processesWith(token)).toEqual([]);
    expect(output).toMatchObject({ timedOut: true, stdout: 'started\n' });
  });

  it('stops background processes when the command ends, before the call returns', async () => {
    for (let i = 0; i < 8; i++) {
      const token = newMarker();
      const output = await sandboxed(`sleep ${token} & nohup sleep ${token} >/dev/null 2>&1 & echo done`);
      expect(processesWith(token)).toEqual([]);
      expect(output).toMatchObject({ exitCode: 0, stdout: 'done\n', timedOut: false });
    }
  });
});

/** Node scripts run as another user or with bwrap hidden: they print one JSON line. */
describe('in other setups (child processes)', () => {
  let children: ReturnType<typeof childScripts>;
  beforeAll(() => {
    children = childScripts();
  });
  afterAll(() => children.remove());
  const script = (name: string, body: string) => children.script(name, body);
  const run = (command: string[], env?: Record<string, string>) => children.run(command, env);

  describe('as an unprivileged user (nobody)', () => {
    const PROBE = `const [ws, kind, secret] = process.argv.slice(2);
const { bashTool } = await repo('plugins/builtin-tools/bash/index.ts');
const { resolveLauncher } = await repo('plugins/builtin-tools/bash/launcher.ts');
const { processesWith } = await repo('test/plugins/builtin-tools/bash/processes.ts');
const { invokeTool } = await repo('testing/index.ts');
const { createSandbox } = await repo('core/index.ts');
const options = kind === 'none' ? { sandbox: { kind: 'none' } } : { sandbox: { kind: 'bwrap' } };
const tool = bashTool(options);
const call = async (command, timeout = 20000) => {
  const result = await invokeTool(tool, { command, timeout }, { sandbox: createSandbox(ws) });
  return result.ok ? result.output : { error: result.error.message };
};
const m = '1000.' + process.pid;
const probe = await call('id -u; grep CapEff /proc/self/status; touch in-workspace && echo wrote; touch /usr/hubos-x 2>&1; ls /proc | grep -c "^[0-9]"; cat /proc/[0-9]*/environ 2>/dev/null | tr "\\\\0" "\\\\n" | grep -c ' + secret);
const timedOut = await call('setsid sleep ' + m + ' & nohup sleep ' + m + ' >/dev/null 2>&1 & ( (sleep ' + m + ' &) & ); sleep 100', 300);
const left = processesWith(m);
console.log(JSON.stringify({ launcher: resolveLauncher(options).launcher.kind, probe, timedOut: timedOut.timedOut, left }));
`;
    let canRun = false;
    let workspace: string;
    beforeAll(() => {
      if (!ROOT) return;
      workspace = mkdtempSync(join(tmpdir(), 'hubos-nobody-'));
      chownSync(workspace, 65534, 65534);
      canRun = spawnSync('setpriv', [...AS_NOBODY, process.execPath, '-e', '0']).status === 0;
    });
    afterAll(() => {
      if (workspace) rmSync(workspace, { recursive: true, force: true });
    });

    it.for(['bwrap', 'none'])('holds with sandbox kind %s', (kind, context) => {
      if (!ROOT) return context.skip(`switching to nobody ${NOT_ROOT}`);
      if (!canRun) return context.skip(`nobody cannot run ${process.execPath} on this machine`);
      const { json } = run(
        ['setpriv', ...AS_NOBODY, process.execPath, script('nobody', PROBE), workspace, kind, SECRET],
        {
          HOME: '/nonexistent',
          HUBOS_TEST_SECRET: SECRET,
        },
      );
      const result = json as {
        launcher: string;
        probe: { stdout: string };
        timedOut: boolean;
        left: number[];
      };
      expect(result.launcher).toBe(kind === 'bwrap' ? 'bwrap' : 'pid-namespace');
      const [uid, caps, wrote, usr, visible, secrets] = result.probe.stdout.trim().split('\n');
      expect({ uid, caps, wrote, secrets }).toEqual({
        uid: '65534',
        caps: 'CapEff:\t0000000000000000',
        wrote: 'wrote',
        secrets: '0',
      });
      expect(usr).toMatch(kind === 'bwrap' ? /Read-only file system/ : /Permission denied/);
      expect(Number(visible)).toBeLessThan(10);
      expect(result.timedOut).toBe(true);
      expect(result.left).toEqual([]);
    });
  });

  describe('without bubblewrap (hidden in a mount namespace)', () => {
    const BOOT = `const { createKernel, MemoryStore } = await repo('core/index.ts');
const { ScriptedModel } = await repo('testing/index.ts');
const { default: builtinTools } = await repo('plugins/builtin-tools/index.ts');
const config = JSON.parse(process.argv[2]);
const warnings = [];
const logger = { debug() {}, info() {}, error() {}, warn: (message) => warnings.push(message) };
const agent = (tools, permissions) => ({ model: new ScriptedModel([]), tools, ...(permissions ? { permissions } : {}) });
const agents = { denied: agent(['bash'], { deny: ['shell:*'] }), reader: agent(['filesystem_read']), coder: agent(['bash']), helper: agent(['bash']) };
let error;
let probe;
try {
  const kernel = await createKernel({ logger, mode: 'test', store: new MemoryStore(), config: { ...config, agents, plugins: [builtinTools()] } }).boot();
  const result = await kernel.agent('coder').tools.find((tool) => tool.name === 'bash').handler(
    { signal: new AbortController().signal },
    { input: { command: 'ls /proc | grep -c "^[0-9]"; test -w /usr && echo usr-writable', timeout: 10000 }, sandbox: kernel.sandbox },
  );
  probe = result.stdout;
  await kernel.close();
} catch (caught) {
  error = { code: caught.code, message: caught.message };
}
console.log(JSON.stringify({ warnings, error, probe }));
`;
    function boot(hide: string[], config: object = {}) {
      const mounts = hide.map((file) => `mount --bind /dev/null ${file}`).join(' && ');
      const workdir = mkdtempSync(join(tmpdir(), 'hubos-boot-'));
      try {
        const command = [
          'unshare',
          '--mount',
          '--',
          '/bin/sh',
          '-c',
          `${mounts} && cd ${workdir} && exec "$@"`,
          'sh',
        ];
        return run([...command, process.execPath, script('boot', BOOT), JSON.stringify(config)]).json as {
          warnings: string[];
          error?: { code: string; message: string };
          probe?: string;
        };
      } finally {
        rmSync(workdir, { recursive: true, force: true });
      }
    }

    it('runs bash unsandboxed in a PID namespace, and warns once that an agent can use it', (context) => {
      if (!ROOT) return context.skip(`hiding bwrap ${NOT_ROOT}`);
      const { warnings, error, probe } = boot([BWRAP]);
      expect(error).toBeUndefined();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /^agent "coder" can run bash commands unsandboxed: bubblewrap is not available at \/usr\/bin\/bwrap/,
      );
      expect(warnings[0]).toMatch(/as root/);
      expect(warnings[0]).toMatch(/apt-get install bubblewrap/);
      expect(warnings[0]).toMatch(/sandbox: \{ kind: "none" \}/);
      expect(warnings[0]).not.toMatch(/setsid/);
      const [visible, wrote] = (probe ?? '').trim().split('\n');
      expect(Number(visible)).toBeLessThan(10); // its own PID namespace
      expect(wrote).toBe('usr-writable'); // and no sandbox at all
    });

    it('says processes can outlive the call when no PID namespace can be made either', (context) => {
      if (!ROOT) return context.skip(`hiding bwrap ${NOT_ROOT}`);
      const { warnings } = boot([BWRAP, '/usr/bin/unshare']);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/setsid or nohup can outlive the call/);
      expect(warnings[0]).toMatch(/\/proc\/<pid>\/environ/);
    });

    it('warns once, saying so, when the operator chose kind "none"', (context) => {
      if (!ROOT) return context.skip(`hiding bwrap ${NOT_ROOT}`);
      const { warnings } = boot([BWRAP], { sandbox: { kind: 'none' } });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/unsandboxed, as configured \(sandbox\.kind "none"\)\. They run as root/);
    });

    it('fails startup when bwrap was configured: never a silent fallback', (context) => {
      if (!ROOT) return context.skip(`hiding bwrap ${NOT_ROOT}`);
      const { error } = boot([BWRAP], { sandbox: { kind: 'bwrap' } });
      expect(error?.code).toBe('CONFIG_INVALID');
      expect(error?.message).toMatch(/apt-get install bubblewrap/);
    });
  });
});

const AS_NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups', '--'];

function writable(folder: string): boolean {
  try {
    accessSync(folder, constants.W_OK);
    mkdirSync(folder, { recursive: true });
    return true;
  } catch {
    return false;
  }
}
