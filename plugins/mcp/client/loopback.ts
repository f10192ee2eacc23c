import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where the browser is sent back to with the authorization code (RFC 8252 loopback redirect). */
export const CALLBACK_PATH = '/callback';

export interface LoopbackCallback {
  readonly port: number;
  /** Resolves with the code once the browser comes back with it; rejects with the server's refusal. */
  readonly code: Promise<string>;
  /** Stops listening; a code not received yet rejects with `reason`. */
  close(reason?: string): void;
}

/** Thrown when the port is taken (a fixed `redirectPort`, or a kept one another program took). */
export class PortInUseError extends Error {}

/**
 * Listens on 127.0.0.1:`port` for the one request that brings the code of the authorization whose
 * `state` is given: a request with another state (a stale or forged link) is answered 400 and
 * waited past. Only 127.0.0.1 (no other interface), only `GET /callback`; it stops once answered.
 */
export async function listenForCallback(
  port: number,
  state: string,
  server: string,
): Promise<LoopbackCallback> {
  let settle!: { resolve(code: string): void; reject(error: Error): void };
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  code.catch(() => undefined);
  let done = false;
  const http: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const page = (status: number, text: string) => {
      res.writeHead(status, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'close',
      });
      res.end(`<!doctype html><meta charset="utf-8"><title>HubOS</title><p>${escapeHtml(text)}</p>`);
    };
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) return page(404, 'Not found.');
    if (done || url.searchParams.get('state') !== state)
      return page(
        400,
        'This authorization link is stale or not one HubOS started. Use the latest one HubOS printed.',
      );
    const error = url.searchParams.get('error');
    const received = url.searchParams.get('code');
    if (error) {
      const description = url.searchParams.get('error_description');
      page(200, `HubOS was not authorized for MCP server "${server}": ${error}. You can close this tab.`);
      finish(() =>
        settle.reject(
          new Error(
            `the authorization server answered ${clip(error)}${description ? `: ${clip(description)}` : ''}`,
          ),
        ),
      );
      return;
    }
    if (!received) return page(400, 'The authorization server sent no code.');
    page(200, `HubOS is authorized for MCP server "${server}". You can close this tab.`);
    finish(() => settle.resolve(received));
  });
  const finish = (then: () => void) => {
    done = true;
    then();
    http.close();
    http.closeIdleConnections();
  };
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(`127.0.0.1:${port} is in use`)
          : new Error(`cannot listen on 127.0.0.1:${port}: ${error.message}`),
      ),
    );
    http.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port: (http.address() as AddressInfo).port,
    code,
    close(reason = 'the authorization was given up') {
      if (done) return;
      finish(() => settle.reject(new Error(reason)));
    },
  };
}

/** A free port on 127.0.0.1 now (to be listened on when an authorization starts). */
export async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** What the authorization server sent, cut short: it reaches logs and status. */
function clip(text: string): string {
  const line = text.replace(/[^\x20-\x7e]/g, ' ');
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
