import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP server on `host` (127.0.0.1 unless told) that counts the connections it gets, a request
 * or a TLS hello alike: what shows that a refused request never reached it. `close` ends it.
 */
export async function countingServer(
  handler: RequestListener,
  { host = '127.0.0.1', port = 0 }: { host?: string; port?: number } = {},
): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  const server: Server = createServer(handler);
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
