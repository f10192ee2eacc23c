import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake provider received. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary wire JSON.
  body: any;
  /** Resolves when the client's connection for this request closes (abort, timeout, pool closed). */
  closed: Promise<void>;
}

export type Handler = (request: Received, res: ServerResponse, index: number) => void | Promise<void>;

export interface FakeServer {
  url: string;
  requests: Received[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that answers with `handler`; each test speaks a provider's wire format through it. */
export async function startServer(handler: Handler): Promise<FakeServer> {
  const requests: Received[] = [];
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const text = Buffer.concat(parts).toString('utf8');
    const closed = new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
    const received: Received = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
      closed,
    };
    requests.push(received);
    await handler(received, res, requests.length - 1);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts an SSE response. */
export function sseHead(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

/** Writes one SSE event: objects as JSON data, strings as they are; `event` adds an `event:` line. */
export function sendEvent(res: ServerResponse, data: unknown, event?: string): void {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  res.write(`${event ? `event: ${event}\n` : ''}data: ${text}\n\n`);
}

/** A JSON response. */
export function sendJSON(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Collects a whole stream. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

/** The error a promise rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
