import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a local server received. */
export interface Seen {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface LocalServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  seen: Seen[];
  close(): Promise<void>;
}

export type Handler = (request: Seen, res: ServerResponse) => unknown;

/** A real HTTP server on 127.0.0.1 (port 0) that records every request before `handler` answers it. */
export async function localServer(handler: Handler = (_, res) => res.end('ok')): Promise<LocalServer> {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const request = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(parts).toString('utf8'),
    };
    seen.push(request);
    await handler(request, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers with a JSON body. */
export function sendJson(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
