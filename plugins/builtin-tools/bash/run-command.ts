import { execa } from 'execa';
import { HubosError } from '../../../core/index.ts';
import { cancelledError, raceAbort } from './abort.ts';
import { bwrapArgs } from './bwrap.ts';
import { DEFAULT_BWRAP_PATH, type SandboxOptions } from './options.ts';
import { OutputCap } from './output-cap.ts';
import { stopGroup } from './process-group.ts';

export interface RunSpec {
  command: string;
  /** The workspace: the command's cwd and, with bwrap, its only writable folder. */
  cwd: string;
  env: Record<string, string>;
  shell: string;
  timeoutMs: number;
  signal: AbortSignal;
  maxOutputBytes: number;
  killGraceMs: number;
  sandbox?: SandboxOptions | undefined;
}

/** What the model sees. A non-zero exit is a normal result, not an error. */
export interface BashResult {
  /** null when the command was ended by a signal (see `signal`). */
  exitCode: number | null;
  signal?: string;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  /** Present when a stream printed more than the cap; the text then holds a "[... N more bytes dropped]" marker. */
  truncated?: true;
  /** A sentence for the model when something unusual happened (timeout, signal). */
  note?: string;
}

/**
 * Runs `<shell> -c <command>` as the leader of its own process group, so a timeout or a
 * cancellation stops every process it started, not just the shell.
 */
export async function runCommand(spec: RunSpec): Promise<BashResult> {
  if (spec.signal.aborted) throw cancelledError(spec.signal);
  const { file, args } = commandLine(spec);
  const start = performance.now();
  const subprocess = execa(file, args, {
    cwd: spec.cwd,
    env: spec.env,
    extendEnv: false,
    // No stdin: a command waiting for input reads EOF instead of hanging until its timeout.
    stdin: 'ignore',
    buffer: false,
    reject: false,
    killDescendants: true,
    timeout: spec.timeoutMs,
    cancelSignal: spec.signal,
    forceKillAfterDelay: spec.killGraceMs,
  });
  const stdout = new OutputCap(spec.maxOutputBytes);
  const stderr = new OutputCap(spec.maxOutputBytes);
  subprocess.stdout?.on('data', (chunk: Buffer) => stdout.write(chunk));
  subprocess.stderr?.on('data', (chunk: Buffer) => stderr.write(chunk));
  let stopReading: NodeJS.Timeout | undefined;
  subprocess.nodeChildProcess.once('exit', () => {
    // Background processes end with the command (a bwrap sandbox's PID namespace does the same).
    if (subprocess.pid !== undefined) stopGroup(subprocess.pid, spec.killGraceMs);
    // A process that left the group (setsid) could hold the pipes open forever: stop reading.
    stopReading = setTimeout(() => {
      subprocess.stdout?.destroy();
      subprocess.stderr?.destroy();
    }, spec.killGraceMs + 250).unref();
  });

  const result = await raceAbort(subprocess, spec.signal);
  clearTimeout(stopReading);
  if (result.exitCode === undefined && result.signal === undefined) {
    throw startFailure(file, spec, result.code, result.shortMessage ?? 'no exit code');
  }
  const truncated = stdout.droppedBytes > 0 || stderr.droppedBytes > 0;
  const note = result.timedOut
    ? `the command timed out after ${spec.timeoutMs} ms and was stopped with all its processes; the output is what it printed until then`
    : result.signal
      ? `the command was ended by ${result.signal}`
      : undefined;
  return {
    exitCode: result.exitCode ?? null,
    ...(result.signal ? { signal: result.signal } : {}),
    stdout: stdout.text(),
    stderr: stderr.text(),
    durationMs: Math.round(performance.now() - start),
    timedOut: result.timedOut,
    ...(truncated ? { truncated: true as const } : {}),
    ...(note ? { note } : {}),
  };
}

function commandLine(spec: RunSpec): { file: string; args: string[] } {
  const shellArgs = [spec.shell, '-c', spec.command];
  if (spec.sandbox?.kind !== 'bwrap') return { file: spec.shell, args: shellArgs.slice(1) };
  return {
    file: spec.sandbox.bwrapPath ?? DEFAULT_BWRAP_PATH,
    args: [...bwrapArgs(spec.sandbox, spec.cwd), ...shellArgs],
  };
}

function startFailure(file: string, spec: RunSpec, code: string | undefined, message: string): HubosError {
  const hint =
    spec.sandbox?.kind === 'bwrap' && code === 'ENOENT'
      ? ': bubblewrap is missing, install it with "apt-get install bubblewrap"'
      : '';
  return new HubosError('TOOL_FAILED', `could not start ${file}${hint} (${message})`, {
    details: { code },
  });
}
