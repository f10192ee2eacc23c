/**
 * `bash` stops the whole process tree: on timeout, on cancellation, and (for background
 * processes) when the command ends. Each command starts a grandchild and writes its pid.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../../../plugins/builtin-tools/bash/index.ts';
import { invokeTool } from '../../../../testing/index.ts';
import {
  isRunning,
  killQuietly,
  outputOf,
  pidFrom,
  tempWorkspace,
} from '../../../fixtures/bash/workspace.ts';

const GONE = { timeout: 5_000, interval: 20 };
/** A command whose grandchild (`sleep 100`) would outlive it if only the shell were killed. */
const WITH_GRANDCHILD = 'sleep 100 & echo $! > grandchild.pid; echo started; sleep 100';

let ws: ReturnType<typeof tempWorkspace>;
const leftovers: number[] = [];
beforeEach(() => {
  ws = tempWorkspace();
});
afterEach(() => {
  for (const pid of leftovers.splice(0)) killQuietly(pid);
  ws.remove();
});

async function grandchild(): Promise<number> {
  const pid = await pidFrom(ws.dir, 'grandchild.pid');
  leftovers.push(pid);
  return pid;
}

describe('bash timeout', () => {
  it('stops the command and its grandchild, and says it timed out', async () => {
    const started = performance.now();
    const result = await invokeTool(
      bashTool(),
      { command: WITH_GRANDCHILD, timeout: 500 },
      { sandbox: ws.sandbox },
    );
    const output = outputOf(result);
    expect(output).toMatchObject({ timedOut: true, exitCode: null, stdout: 'started\n' });
    expect(output.note).toMatch(/timed out after 500 ms/);
    expect(performance.now() - started).toBeLessThan(5_000);
    const pid = await grandchild();
    await expect.poll(() => isRunning(pid), GONE).toBe(false);
  });

  it('escalates to SIGKILL for processes that ignore SIGTERM', async () => {
    const tool = bashTool({ killGraceMs: 200 });
    const command = `trap '' TERM; ${WITH_GRANDCHILD}`;
    const output = outputOf(await invokeTool(tool, { command, timeout: 300 }, { sandbox: ws.sandbox }));
    expect(output.timedOut).toBe(true);
    const pid = await grandchild();
    await expect.poll(() => isRunning(pid), GONE).toBe(false);
  });
});

describe('bash cancellation', () => {
  it('kills the tree and returns promptly when the signal aborts', async () => {
    const controller = new AbortController();
    const call = invokeTool(
      bashTool(),
      { command: WITH_GRANDCHILD },
      { sandbox: ws.sandbox, signal: controller.signal },
    );
    const pid = await grandchild();
    expect(isRunning(pid)).toBe(true);
    const aborted = performance.now();
    controller.abort();
    const result = await call;
    expect(performance.now() - aborted).toBeLessThan(500);
    expect(result).toMatchObject({ ok: false, error: { code: 'TOOL_FAILED' } });
    expect(!result.ok && result.error.message).toMatch(/cancelled/);
    await expect.poll(() => isRunning(pid), GONE).toBe(false);
  });

  it('does not start a command when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await invokeTool(
      bashTool(),
      { command: 'touch started' },
      { sandbox: ws.sandbox, signal: controller.signal },
    );
    expect(result.ok).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(existsSync(join(ws.dir, 'started'))).toBe(false);
  });

  it('passes on the reason the run gave', async () => {
    const controller = new AbortController();
    const call = invokeTool(
      bashTool(),
      { command: 'sleep 100' },
      { sandbox: ws.sandbox, signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('user pressed stop')), 50);
    const result = await call;
    expect(!result.ok && result.error.message).toMatch(/user pressed stop/);
  });
});

describe('bash background processes', () => {
  it('are stopped when the command ends, without waiting for them', async () => {
    const started = performance.now();
    const output = outputOf(
      await invokeTool(
        bashTool(),
        { command: 'sleep 100 & echo $! > grandchild.pid; echo done' },
        { sandbox: ws.sandbox },
      ),
    );
    expect(output).toMatchObject({ exitCode: 0, stdout: 'done\n', timedOut: false });
    expect(performance.now() - started).toBeLessThan(2_000);
    const pid = await grandchild();
    await expect.poll(() => isRunning(pid), GONE).toBe(false);
  });

  it('that left the process group cannot hold the result back', async () => {
    const tool = bashTool({ killGraceMs: 200 });
    // It holds stdout open; the shell waits until it has left the group, then exits.
    const command = `setsid sh -c 'echo $$ > grandchild.pid; exec sleep 100' &
      until [ -s grandchild.pid ]; do sleep 0.01; done; echo done`;
    const started = performance.now();
    const output = outputOf(await invokeTool(tool, { command, timeout: 20_000 }, { sandbox: ws.sandbox }));
    expect(output).toMatchObject({ exitCode: 0, stdout: 'done\n', timedOut: false });
    expect(performance.now() - started).toBeLessThan(3_000);
    await grandchild(); // killed by afterEach: a process that escapes the group is out of reach
  });
});
