import { type ChildProcess, spawn } from 'node:child_process';

export interface ServeProcess {
  child: ChildProcess;
  /** Where it listens, as it printed it (no trailing slash). */
  url: string;
  output: () => string;
}

/** A `hubos serve --port 0` process (`file args…`), resolved with its URL once it prints where it listens. */
export function serveProcess(
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<ServeProcess> {
  const child = spawn(file, [...args, 'serve', '--port', '0'], options);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hubos serve did not start:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += String(chunk);
      const url = /HubOS listening on (\S+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url: url.replace(/\/$/, ''), output: () => output });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`hubos serve exited with ${code}:\n${output}`)));
  });
}

/** Stops a served process and waits until it is gone. */
export async function stopServe(server: ServeProcess | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  const gone = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await gone;
}
