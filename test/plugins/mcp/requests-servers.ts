import { afterEach } from 'vitest';
import type { McpServerConfig } from '../../../plugins/mcp/index.ts';
import { REQUESTS_SERVER, type RequestsHttpServer, startRequestsServer } from './client-requests-server.ts';

/**
 * The requests server (it asks its client for sampling, elicitation and roots) over both
 * transports, for one test file: HTTP servers started by a test are stopped after it.
 */
export function requestsServers() {
  const started: RequestsHttpServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.stop()));
  });
  return {
    async httpServer(extra: Partial<McpServerConfig> = {}): Promise<McpServerConfig> {
      const server = await startRequestsServer();
      started.push(server);
      return { url: server.url, ...extra } as McpServerConfig;
    },
    stdioServer: (extra: Partial<McpServerConfig> = {}): McpServerConfig =>
      ({ command: process.execPath, args: [REQUESTS_SERVER], ...extra }) as McpServerConfig,
  };
}

/** The JSON a requests-server tool answered with. */
export const answer = (output: unknown) => JSON.parse(output as string) as Record<string, unknown>;
