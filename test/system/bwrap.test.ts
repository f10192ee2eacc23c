/**
 * The `bash` tool inside bubblewrap is a real boundary: read-only host, writable workspace, private
 * /tmp, no network, its own PID namespace. Needs Debian's bubblewrap (`apt-get install -y
 * bubblewrap`); fails, never skips, without it.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HubosError } from '../../core/index.ts';
import { type BashOptions, bashTool, checkSandbox } from '../../plugins/builtin-tools/bash/index.ts';
import { invokeTool } from '../../testing/index.ts';
import { outputOf, tempWorkspace } from '../fixtures/bash/workspace.ts';

const BWRAP = '/usr/bin/bwrap';
const MISSING_BWRAP = `the bash sandbox tests need Debian's bubblewrap at ${BWRAP}, which is missing: install it with "apt-get update && apt-get install -y bubblewrap" (.ci/run does)`;
const SANDBOXED: BashOptions = { sandbox: { kind: 'bwrap' } };

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace();
});
afterEach(() => ws.remove());

async function sandboxed(command: string, options: BashOptions = SANDBOXED, timeout = 20_000) {
  return outputOf(await invokeTool(bashTool(options), { command, timeout }, { sandbox: ws.sandbox }));
}

/** Host processes whose command line contains `token`: what a sandbox left running. */
function hostProcessesWith(token: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const zombie = stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
        return !zombie && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(token);
      } catch {
        return false; // exited while we looked
      }
    })
    .map(Number);
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

  it('runs in the workspace, which is writable', async () => {
    const output = await sandboxed('pwd; echo kept > inside.txt; mkdir -p sub && echo too > sub/file');
    expect(output).toMatchObject({ exitCode: 0, stdout: `${ws.dir}\n`, stderr: '' });
    expect(readFileSync(join(ws.dir, 'inside.txt'), 'utf8')).toBe('kept\n');
    expect(readFileSync(join(ws.dir, 'sub/file'), 'utf8')).toBe('too\n');
  });

  describe('outside the workspace', () => {
    let outside: string;
    let hostTmp: string;
    beforeAll(() => {
      // /var/tmp, not /tmp: the sandbox mounts its own /tmp, where this folder would simply be absent.
      outside = realpathSync(mkdtempSync('/var/tmp/hubos-outside-'));
      hostTmp = realpathSync(mkdtempSync(join(tmpdir(), 'hubos-host-')));
    });
    afterAll(() => {
      rmSync(outside, { recursive: true, force: true });
      rmSync(hostTmp, { recursive: true, force: true });
    });

    it.each([
      ['a host folder the server can write', () => `echo escaped > ${outside}/file`],
      ['/etc', () => 'touch /etc/hubos-escaped'],
      ['/usr/local/bin', () => 'touch /usr/local/bin/hubos-escaped'],
    ])('cannot write to %s: the root is read-only', async (_name, command) => {
      const output = await sandboxed(command());
      expect(output.exitCode).not.toBe(0);
      expect(output.stderr).toMatch(/Read-only file system/);
    });

    it('leaves the host untouched', () => {
      expect(readdirSync(outside)).toEqual([]);
      expect(existsSync('/etc/hubos-escaped')).toBe(false);
      expect(existsSync('/usr/local/bin/hubos-escaped')).toBe(false);
    });

    it('can still read the host (tools, libraries)', async () => {
      const output = await sandboxed(`test -r /etc/os-release && command -v ls && ls ${outside}`);
      expect(output.exitCode).toBe(0);
    });

    it("gets a private /tmp: the host's is hidden, and what it writes there the host never sees", async () => {
      const name = `hubos-private-${process.pid}`;
      const output = await sandboxed(`echo hidden > /tmp/${name} && cat /tmp/${name} && ls /tmp`);
      expect(output.exitCode).toBe(0);
      const [content, ...listed] = output.stdout.trim().split('\n');
      expect(content).toBe('hidden');
      // Only its own file and the mount point of the workspace, which lives under /tmp here.
      expect(listed.sort()).toEqual([name, ws.dir.split('/')[2]].sort());
      expect(listed).not.toContain(basename(hostTmp));
      expect(existsSync(join('/tmp', name))).toBe(false);
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

    it('is shared when network: true (so the check above means something)', async () => {
      const output = await sandboxed(connect(), { sandbox: { kind: 'bwrap', network: true } });
      expect(output).toMatchObject({ exitCode: 0, stdout: 'connected\nhello from the host\n' });
    });
  });

  it('has its own PID namespace: only the sandbox processes are visible', async () => {
    const output = await sandboxed('echo $$; ls /proc | grep -cE "^[0-9]+$"');
    const [shellPid, visible] = output.stdout.trim().split('\n').map(Number);
    expect(shellPid).toBeLessThan(10);
    expect(visible).toBeLessThan(10);
    expect(output.stdout).not.toContain(String(process.pid));
  });

  it('keeps the environment clean inside too', async () => {
    process.env.HUBOS_TEST_SECRET = 'sk-secret-test';
    try {
      const output = await sandboxed('env');
      expect(output.stdout).not.toContain('sk-secret-test');
      expect(output.stdout).toContain(`HOME=${ws.dir}\n`);
    } finally {
      delete process.env.HUBOS_TEST_SECRET;
    }
  });

  it('stops every sandboxed process on timeout', async () => {
    const token = `98765.${process.pid}`;
    const output = await sandboxed(`sleep ${token} & sleep ${token} & echo started; wait`, SANDBOXED, 500);
    expect(output).toMatchObject({ timedOut: true, stdout: 'started\n' });
    await expect.poll(() => hostProcessesWith(token), { timeout: 5_000 }).toEqual([]);
  });

  it('stops background processes when the command ends', async () => {
    const token = `98764.${process.pid}`;
    const output = await sandboxed(`sleep ${token} & echo done`);
    expect(output).toMatchObject({ exitCode: 0, stdout: 'done\n', timedOut: false });
    await expect.poll(() => hostProcessesWith(token), { timeout: 5_000 }).toEqual([]);
  });
});
