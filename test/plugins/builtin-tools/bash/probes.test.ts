import { describe, expect, it, vi } from 'vitest';
import { helpSays } from '../../../../plugins/builtin-tools/bash/bwrap.ts';
import { runProbeCommand, runProbeCommandAsync } from '../../../../plugins/builtin-tools/bash/probe-run.ts';

describe('sandbox probes run in the background as they run in the foreground', () => {
  it.each([
    ['a command that succeeds', '/bin/sh', ['-c', 'echo out; echo err >&2']],
    ['a command that fails', '/bin/sh', ['-c', 'echo nope >&2; exit 3']],
    ['a program that is not there', '/nonexistent/bwrap', ['--help']],
  ])('%s: the same exit code, error code and output', async (_label, file, args) => {
    const now = runProbeCommand(file, args);
    const soon = await runProbeCommandAsync(file, args);
    expect({ ...soon, message: undefined }).toEqual({ ...now, message: undefined });
  });

  it('stops a probe that outlives its time and says so', async () => {
    const run = await runProbeCommandAsync('/bin/sh', ['-c', 'sleep 5'], 100);
    expect(run).toMatchObject({ exitCode: null, code: 'ETIMEDOUT' });
  });

  it('reads bwrap --help only when it answered: a failed or timed-out one is no answer (and the option is used)', () => {
    const run = (exitCode: number | null, stdout: string, code?: string) => ({
      exitCode,
      stdout,
      stderr: '',
      message: '',
      ...(code ? { code } : {}),
    });
    expect(helpSays(run(0, 'usage: bwrap [OPTIONS...]\n    --disable-userns  Disable...'))).toBe(true);
    expect(helpSays(run(0, 'usage: bwrap [OPTIONS...]\n    --unshare-all'))).toBe(false);
    expect(helpSays(run(null, '', 'ETIMEDOUT'))).toBeUndefined();
    expect(helpSays(run(null, '', 'ENOENT'))).toBeUndefined();
    expect(helpSays(run(1, 'bwrap: out of memory'))).toBeUndefined();
  });

  it('answers the probe of the foreground from the one that ran in the background', async () => {
    vi.resetModules();
    const { probePidNamespace, probePidNamespaceSoon } = await import(
      '../../../../plugins/builtin-tools/bash/pid-namespace.ts'
    );
    // A fresh module: nothing probed yet. The same object back means the probe did not run again.
    const soon = await probePidNamespaceSoon();
    expect(probePidNamespace()).toBe(soon);
    expect(await probePidNamespaceSoon()).toBe(soon);
  });
});
