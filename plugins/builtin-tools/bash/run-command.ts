import { accessSync, constants, existsSync } from 'node:fs';
import { constants as os } from 'node:os';
import { errorMessage, HubosError } from '../../../core/index.ts';
import { cancelledError } from './abort.ts';
import { commandLine, type Launcher } from './launcher.ts';
import type { ResourceLimits } from './limits.ts';
import { signalNamespace } from './ns-signal.ts';
import { DEFAULT_BWRAP_PATH } from './options.ts';
import { OutputCap } from './output-cap.ts';
import { signalGroup, stopGroup } from './process-group.ts';

/** How long a cancelled call waits for its processes to be gone before it returns anyway. */
const CANCEL_WAIT_MS = 1_000;

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
  launcher: Launcher;
  /** Host folders the sandbox hides besides its defaults (`BashOptions.hide`). */
  hide?: readonly string[] | undefined;
  /** rlimits of the command's processes; unset ones take their defaults. */
  limits?: ResourceLimits | undefined;
}

/** What the model sees. A non-zero exit is a normal result, not an error. */
export interface BashResult {
  /** null when the command was ended by a signal (see `signal`) or timed out. */
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
 * Runs `<shell> -c <command>` with its launcher. A timeout sends SIGTERM to every process of the
 * command, then SIGKILL after the grace period; a cancellation kills them at once. In a PID
 * namespace (bwrap, unshare) the call returns only once none of them is left.
 */
export async function runCommand(spec: RunSpec): Promise<BashResult> {
  if (spec.signal.aborted) throw cancelledError(spec.signal);
  checkShell(spec);
  // Started through setpriv (a root server), a missing bwrap would be setpriv's exit code 127: say it here.
  if (spec.launcher.kind === 'bwrap') {
    const bwrap = spec.launcher.sandbox.bwrapPath ?? DEFAULT_BWRAP_PATH;
    if (!existsSync(bwrap)) throw startFailure(bwrap, spec, 'ENOENT', `${bwrap} does not exist`);
  }
  const { file, args } = commandLine(spec.launcher, spec);
  // Loaded with the first command: execa is a large module graph that a server without bash calls never needs.
  const { execa } = await import('execa');
  if (spec.signal.aborted) throw cancelledError(spec.signal);
  const start = performance.now();
  const subprocess = execa(file, args, {
    cwd: spec.cwd,
    env: spec.env,
    extendEnv: false,
    // No stdin: a command waiting for input reads EOF instead of hanging until its timeout.
    stdin: 'ignore',
    buffer: false,
    reject: false,
    // Its own process group (the fallback's kill target, and out of reach of the server's
    // Ctrl-C) while execa still stops it when the server exits, unlike with `detached`.
    killDescendants: true,
  });
  const stdout = new OutputCap(spec.maxOutputBytes);
  const stderr = new OutputCap(spec.maxOutputBytes);
  subprocess.stdout?.on('data', (chunk: Buffer) => stdout.write(chunk));
  subprocess.stderr?.on('data', (chunk: Buffer) => stderr.write(chunk));

  let exited = false;
  let sent: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    const pid = subprocess.pid;
    if (exited || pid === undefined) return;
    sent = signal;
    if (spec.launcher.kind === 'process-group') signalGroup(pid, signal);
    else signalNamespace(pid, signal, () => !exited);
  };
  let timedOut = false;
  let forceKill: NodeJS.Timeout | undefined;
  const timeout = setTimeout(() => {
    timedOut = true;
    stop('SIGTERM');
    forceKill = setTimeout(() => stop('SIGKILL'), spec.killGraceMs);
  }, spec.timeoutMs);
  let stopReading: NodeJS.Timeout | undefined;
  subprocess.nodeChildProcess.once('exit', () => {
    exited = true;
    // Without a namespace, background processes are stopped here; one that left the group
    // (setsid) could hold the pipes open forever: stop reading.
    if (spec.launcher.kind === 'process-group' && subprocess.pid !== undefined)
      stopGroup(subprocess.pid, spec.killGraceMs);
    stopReading = setTimeout(() => {
      subprocess.stdout?.destroy();
      subprocess.stderr?.destroy();
    }, spec.killGraceMs + 250).unref();
  });
  let onAbort!: () => void;
  const cancelled = new Promise<void>((resolve) => {
    onAbort = () => {
      stop('SIGKILL');
      resolve();
    };
    spec.signal.addEventListener('abort', onAbort, { once: true });
  });

  try {
    const result = await Promise.race([
      subprocess,
      cancelled.then(() => settledWithin(subprocess, CANCEL_WAIT_MS)),
    ]);
    if (spec.signal.aborted) throw cancelledError(spec.signal);
    if (!result || (result.exitCode === undefined && result.signal === undefined)) {
      throw startFailure(file, spec, result?.code, result?.shortMessage ?? 'no exit code');
    }
    return {
      ...outcome(result, timedOut, sent),
      stdout: stdout.text(),
      stderr: stderr.text(),
      durationMs: Math.round(performance.now() - start),
      timedOut,
      ...(stdout.droppedBytes > 0 || stderr.droppedBytes > 0 ? { truncated: true as const } : {}),
      ...note(result, timedOut, spec.timeoutMs),
    };
  } finally {
    clearTimeout(timeout);
    clearTimeout(forceKill);
    clearTimeout(stopReading);
    spec.signal.removeEventListener('abort', onAbort);
  }
}

type Outcome = { exitCode?: number | undefined; signal?: string | undefined };

/** A timed-out command reports the signal that stopped it, whatever its launcher made of that. */
function outcome(result: Outcome, timedOut: boolean, sent: NodeJS.Signals | undefined) {
  const signal = timedOut ? (sent ?? result.signal) : result.signal;
  return {
    exitCode: timedOut || result.exitCode === undefined ? null : result.exitCode,
    ...(signal ? { signal } : {}),
  };
}

function note(result: Outcome, timedOut: boolean, timeoutMs: number): { note?: string } {
  if (timedOut) {
    return {
      note: `the command timed out after ${timeoutMs} ms and was stopped with all its processes; the output is what it printed until then`,
    };
  }
  if (result.signal) return { note: `the command was ended by ${result.signal}` };
  // In a PID namespace a signal comes back as a shell reports it: 128 + its number.
  const code = result.exitCode ?? 0;
  const name = code > 128 ? signalName(code - 128) : undefined;
  return name
    ? { note: `exit code ${code} usually means the command was ended by ${name} (128 + ${code - 128})` }
    : {};
}

function signalName(number: number): string | undefined {
  return Object.entries(os.signals).find(([, value]) => value === number)?.[0];
}

/** Resolves with `work`, or undefined after `ms`: a process stuck in the kernel cannot hold a cancel. */
function settledWithin<T>(work: PromiseLike<T>, ms: number): Promise<T | undefined> {
  return Promise.race([
    work,
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref()),
  ]);
}

/** Inside a namespace a missing shell would only show as exit code 127: say it plainly. */
function checkShell(spec: RunSpec): void {
  try {
    accessSync(spec.shell, constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw startFailure(spec.shell, spec, code, errorMessage(error));
  }
}

function startFailure(file: string, spec: RunSpec, code: string | undefined, message: string): HubosError {
  const hint =
    spec.launcher.kind === 'bwrap' && code === 'ENOENT' && file !== spec.shell
      ? ': bubblewrap is missing, install it with "apt-get install bubblewrap"'
      : '';
  return new HubosError('TOOL_FAILED', `could not start ${file}${hint} (${message})`, {
    details: { code },
  });
}
