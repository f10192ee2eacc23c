import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const AUTOCANNON = fileURLToPath(new URL('../node_modules/autocannon/autocannon.js', import.meta.url));

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** Requests answered in all (2xx or not). */
  requests: number;
  errors: number;
}

/**
 * autocannon, in its own process (so it does not share the server's event loop), POSTing `body`
 * to `urls` for `seconds` with `connections` keep-alive connections; with several URLs, connection
 * i goes to URL i mod n (round-robin).
 */
export async function autocannon(
  urls: string[],
  options: { connections: number; seconds: number; body: string },
): Promise<LoadResult> {
  const args = [
    AUTOCANNON,
    '--json',
    '-c',
    String(options.connections),
    '-d',
    String(options.seconds),
    '-m',
    'POST',
    '-H',
    'content-type=application/json',
    '-b',
    options.body,
    ...urls,
  ];
  const output = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, args, { maxBuffer: 16 << 20 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  );
  const result = JSON.parse(output) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    errors: number;
    non2xx: number;
  };
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.non2xx,
  };
}
