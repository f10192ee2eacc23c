import { HubosError } from '../../core/index.ts';

/** How to choose another port, said by every message about one. */
const PICK_ANOTHER =
  'hubos serve --port <n>, PORT=<n>, or server.port in agent.config.ts (0 picks a free one)';

/** A port as text (`--port`, `PORT`): a whole number from 0 to 65535, else undefined. */
export function parsePort(text: string): number | undefined {
  if (!/^\s*\d+\s*$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

/** What is wrong with a port given as text, and how to fix it: the same words for --port and PORT. */
export function badPortMessage(source: '--port' | 'PORT', text: string): string {
  const fix = source === 'PORT' ? 'set PORT to one, or pass --port <n>' : 'e.g. --port 8080';
  return `${source} must be a whole number from 0 to 65535 (0 picks a free port), got "${text}": ${fix}`;
}

/** The PORT environment variable as a port, undefined when unset or empty; a bad one is an error. */
export function portFromEnv(): number | undefined {
  const text = process.env.PORT;
  if (!text) return undefined;
  const port = parsePort(text);
  if (port === undefined) throw new HubosError('CONFIG_INVALID', badPortMessage('PORT', text));
  return port;
}

/** Why listening failed, in words that say which port and how to pick another; other errors as they are. */
export function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: string } | null)?.code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE')
    return new HubosError(
      'LISTEN_FAILED',
      `port ${port} is already in use (${where}): stop what listens there, or pick another port with ${PICK_ANOTHER}`,
      { cause: error, details: { host, port } },
    );
  if (code === 'EACCES')
    return new HubosError(
      'LISTEN_FAILED',
      `not allowed to listen on ${where} (ports below 1024 need privileges): pick another port with ${PICK_ANOTHER}`,
      { cause: error, details: { host, port } },
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new HubosError(
      'LISTEN_FAILED',
      `cannot listen on ${where}: no network interface has the address "${host}"; use one of this machine's addresses with hubos serve --host <h> or server.host (127.0.0.1 by default)`,
      { cause: error, details: { host, port } },
    );
  return error;
}
