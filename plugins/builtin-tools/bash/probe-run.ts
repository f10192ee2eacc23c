import { spawn, spawnSync } from 'node:child_process';

/** How a probe command ended: its exit code, or the spawn error's code, with its stderr. */
export interface ProbeRun {
  exitCode: number | null;
  /** The spawn error's code (ENOENT, EACCES, ETIMEDOUT), when the command could not run to its end. */
  code?: string;
  stdout: string;
  stderr: string;
  message: string;
}

/**
 * Runs a short probe command synchronously (no stdin, 10 s at most by default). node:child_process, not execa:
 * probes run while the server starts, where loading execa would cost more than the probe itself.
 */
export function runProbeCommand(file: string, args: readonly string[], timeoutMs = 10_000): ProbeRun {
  const run = spawnSync(file, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: timeoutMs,
    encoding: 'utf8',
  });
  const error = run.error as NodeJS.ErrnoException | undefined;
  const exit = run.signal ? `was stopped by ${run.signal}` : `exited with ${run.status}`;
  return {
    exitCode: run.status,
    ...(error?.code ? { code: error.code } : {}),
    stdout: run.stdout ?? '',
    stderr: run.stderr ?? '',
    message: error ? error.message : `${file} ${exit}`,
  };
}

/**
 * The same probe without blocking: a server starts it early and does the rest of its start while
 * the probe's processes run (see `probeLauncherSoon`).
 */
export function runProbeCommandAsync(
  file: string,
  args: readonly string[],
  timeoutMs = 10_000,
): Promise<ProbeRun> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const settle = (run: ProbeRun) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(run);
    };
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      settle({ exitCode: null, code: 'ETIMEDOUT', stdout, stderr, message: `${file} timed out` });
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', (error: NodeJS.ErrnoException) =>
      settle({
        exitCode: null,
        ...(error.code ? { code: error.code } : {}),
        stdout,
        stderr,
        message: error.message,
      }),
    );
    child.once('close', (status, signal) =>
      settle({
        exitCode: status,
        stdout,
        stderr,
        message: `${file} ${signal ? `was stopped by ${signal}` : `exited with ${status}`}`,
      }),
    );
  });
}
