import { type ChildProcess, spawn } from 'node:child_process';
import type { Owner } from './replay-image.ts';

export interface Started {
  child: ChildProcess;
  /** The port it printed it listens on. */
  port: number;
  output: () => string;
  /** Sends `signal` and resolves with the exit code (null when a signal ended it). */
  stop: (signal: NodeJS.Signals) => Promise<number | null>;
}

/** Runs a recipe's start command as is, resolving once the server prints where it listens. */
export function startServer(
  command: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; owner?: Owner },
): Promise<Started> {
  const [file, ...args] = command;
  const child = spawn(file!, args, {
    cwd: options.cwd,
    env: options.env,
    ...(options.owner ? { uid: options.owner.uid, gid: options.owner.gid } : {}),
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start:\n${output}`));
    }, 90_000);
    const read = (chunk: Buffer) => {
      output += String(chunk);
      const port = /HubOS listening on http:\/\/\S+:(\d+)/.exec(output)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve({ child, port: Number(port), output: () => output, stop });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('error', (error) => reject(error));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${output}`));
    });
  });
}
