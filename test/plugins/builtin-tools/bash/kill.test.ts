/**
 * Nothing a `bash` command starts outlives the call — finished, timed out or cancelled — including
 * processes that leave its process group (`setsid`, `nohup`, double forks): the command has a PID
 * namespace of its own, in bubblewrap or (unsandboxed) through `unshare`. Each command runs
 * `sleep <marker>`, and the host's /proc is searched for the marker as soon as the call returns.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BashOptions, bashTool } from '../../../../plugins/builtin-tools/bash/index.ts';
import { runCommand } from '../../../../plugins/builtin-tools/bash/run-command.ts';
import { invokeTool } from '../../../../testing/index.ts';
import { outputOf, tempWorkspace } from '../../../fixtures/bash/workspace.ts';
import { killAll, launcherKind, marker, processesWith } from './processes.ts';

const GONE = { timeout: 5_000, interval: 20 };
/** `sleep <marker>`, once it has written `up`: the command waits for that, so it surely ran. */
const escaper = (m: string) => `sh -c 'touch up; exec sleep ${m}'`;
const UP = 'until [ -e up ]; do sleep 0.01; done';
/** Each kind of escape from a process group, started in the background. */
const ESCAPES = {
  setsid: (m: string) => `setsid ${escaper(m)} &\n${UP}`,
  nohup: (m: string) => `nohup ${escaper(m)} > /dev/null 2>&1 &\n${UP}`,
  'a double fork': (m: string) => `( (${escaper(m)} &) & )\n${UP}`,
};
/** The 1-in-4 race of a background child still alive at return needs a few tries to show. */
const TRIES = 6;

let ws: ReturnType<typeof tempWorkspace>;
const markers: string[] = [];
beforeEach(() => {
  ws = tempWorkspace();
});
afterEach(() => {
  for (const token of markers.splice(0)) killAll(token);
  ws.remove();
});

function newMarker(): string {
  const token = marker();
  markers.push(token);
  return token;
}

const MODES: [string, BashOptions][] = [
  ['by default', {}],
  ['unsandboxed (sandbox: none)', { sandbox: { kind: 'none' } }],
];

describe.each(MODES)('bash %s', (_mode, options) => {
  const kind = launcherKind(options);
  const contained = kind !== 'process-group';
  const call = (
    command: string,
    extra: { timeout?: number; signal?: AbortSignal } = {},
    tool = bashTool(options),
  ) =>
    invokeTool(
      tool,
      { command, ...(extra.timeout ? { timeout: extra.timeout } : {}) },
      { sandbox: ws.sandbox, ...(extra.signal ? { signal: extra.signal } : {}) },
    );
  /** Cancels the call once the command has written `started`. */
  async function cancelled(command: string) {
    const controller = new AbortController();
    const result = call(`${command}\ntouch started\nsleep 100`, { signal: controller.signal });
    await expect.poll(() => existsSync(join(ws.dir, 'started'))).toBe(true);
    const aborted = performance.now();
    controller.abort();
    const settled = await result;
    return { result: settled, ms: performance.now() - aborted };
  }

  it.skipIf(!contained)(`runs in a PID namespace (${kind} here)`, async () => {
    const output = outputOf(await call('echo $$; ls /proc | grep -cE "^[0-9]+$"'));
    const [shell, visible] = output.stdout.trim().split('\n').map(Number);
    expect(shell).toBeLessThan(10);
    expect(visible).toBeLessThan(10);
  });

  describe.skipIf(!contained)('leaves no process behind', () => {
    it('on timeout: SIGTERM to all, reported as timed out', async () => {
      const m = newMarker();
      const started = performance.now();
      const output = outputOf(await call(`sleep ${m} & echo started; sleep ${m}`, { timeout: 500 }));
      expect(processesWith(m)).toEqual([]);
      expect(output).toMatchObject({
        timedOut: true,
        exitCode: null,
        signal: 'SIGTERM',
        stdout: 'started\n',
      });
      expect(output.note).toMatch(/timed out after 500 ms/);
      expect(performance.now() - started).toBeLessThan(3_000);
    });

    it('on timeout: SIGKILL after the grace period for processes that ignore SIGTERM', async () => {
      const m = newMarker();
      const tool = bashTool({ ...options, killGraceMs: 200 });
      const started = performance.now();
      const output = outputOf(await call(`trap '' TERM; sleep ${m} & sleep ${m}`, { timeout: 300 }, tool));
      expect(processesWith(m)).toEqual([]);
      expect(output).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
      expect(performance.now() - started).toBeLessThan(2_000);
    });

    it('on cancellation: killed at once, and the call returns promptly', async () => {
      const m = newMarker();
      const { result, ms } = await cancelled(`sleep ${m} &`);
      expect(processesWith(m)).toEqual([]);
      expect(ms).toBeLessThan(500);
      expect(result).toMatchObject({ ok: false, error: { code: 'TOOL_FAILED' } });
      expect(!result.ok && result.error.message).toMatch(/cancelled/);
    });

    it('when the command ends: background processes, without waiting for them', async () => {
      for (let i = 0; i < TRIES; i++) {
        const m = newMarker();
        const started = performance.now();
        const output = outputOf(await call(`sleep ${m} & echo done`));
        expect(processesWith(m)).toEqual([]);
        expect(output).toMatchObject({ exitCode: 0, stdout: 'done\n', timedOut: false });
        expect(performance.now() - started).toBeLessThan(2_000);
      }
    });

    describe.each(Object.entries(ESCAPES))('started with %s', (_name, start) => {
      it('when the command ends', async () => {
        for (let i = 0; i < TRIES; i++) {
          const m = newMarker();
          const output = outputOf(await call(`${start(m)}\necho done`));
          expect(processesWith(m)).toEqual([]);
          expect(output).toMatchObject({ exitCode: 0, stdout: 'done\n' });
        }
      });

      it('on timeout', async () => {
        for (let i = 0; i < 3; i++) {
          const m = newMarker();
          const output = outputOf(await call(`${start(m)}\nsleep 100`, { timeout: 200 }));
          expect(processesWith(m)).toEqual([]);
          expect(output.timedOut).toBe(true);
        }
      });

      it('on cancellation', async () => {
        for (let i = 0; i < 3; i++) {
          const m = newMarker();
          const { result } = await cancelled(start(m));
          expect(processesWith(m)).toEqual([]);
          expect(result.ok).toBe(false);
        }
      });
    });
  });

  it('does not start a command when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await call('touch started', { signal: controller.signal });
    expect(result.ok).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(existsSync(join(ws.dir, 'started'))).toBe(false);
  });

  it('passes on the reason the run gave', async () => {
    const controller = new AbortController();
    const result = call('sleep 100', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user pressed stop')), 50);
    const settled = await result;
    expect(!settled.ok && settled.error.message).toMatch(/user pressed stop/);
  });
});

/** Where no PID namespace can be made: a process group, stopped when the command ends. */
describe('bash without a PID namespace (the fallback)', () => {
  const run = (command: string, timeoutMs = 20_000, killGraceMs = 2_000) =>
    runCommand({
      command,
      cwd: ws.dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      shell: '/bin/bash',
      timeoutMs,
      signal: new AbortController().signal,
      maxOutputBytes: 64 * 1024,
      killGraceMs,
      launcher: { kind: 'process-group', reason: 'test' },
    });

  it('stops the command and its grandchild on timeout', async () => {
    const m = newMarker();
    const output = await run(`sleep ${m} & echo started; sleep ${m}`, 500);
    expect(output).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGTERM', stdout: 'started\n' });
    await expect.poll(() => processesWith(m), GONE).toEqual([]);
  });

  it('stops background processes when the command ends', async () => {
    const m = newMarker();
    expect(await run(`sleep ${m} & echo done`)).toMatchObject({ exitCode: 0, stdout: 'done\n' });
    await expect.poll(() => processesWith(m), GONE).toEqual([]);
  });

  it('reports a command ended by a signal', async () => {
    const output = await run('kill -KILL $$');
    expect(output).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false });
    expect(output.note).toMatch(/SIGKILL/);
  });

  it('is not held back by a process that left the group, which it cannot stop', async () => {
    const m = newMarker();
    // It holds stdout open; the shell waits until it has left the group, then exits.
    const command = `setsid sh -c 'touch left; exec sleep ${m}' & until [ -e left ]; do sleep 0.01; done; echo done`;
    const started = performance.now();
    const output = await run(command, 20_000, 200);
    expect(output).toMatchObject({ exitCode: 0, stdout: 'done\n', timedOut: false });
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(processesWith(m)).not.toEqual([]); // killed by afterEach: out of a process group's reach
  });
});
