import type { Logger, Registry } from '../../../core/index.ts';
import type { McpConfig } from '../config.ts';
import { McpServerConnection } from './server-connection.ts';
import type { McpServerStatus } from './status.ts';
import { waitAtMost } from './timeouts.ts';

/** How long boot waits for the servers' first attempts by default. */
export const DEFAULT_BOOT_WAIT_MS = 10_000;

export interface McpClientsOptions {
  registry: Registry;
  logger: Logger;
  baseDir: string;
  version: string;
}

/** The configured MCP servers of one kernel, as tool sources: `kernel.service('mcp').clients`. */
export class McpClients {
  readonly #servers = new Map<string, McpServerConnection>();
  readonly #bootWaitMs: number;

  constructor(config: McpConfig, options: McpClientsOptions) {
    this.#bootWaitMs = config.bootWaitMs ?? DEFAULT_BOOT_WAIT_MS;
    for (const [name, server] of Object.entries(config.servers ?? {})) {
      this.#servers.set(
        name,
        new McpServerConnection(name, server, { ...options, restart: config.restart ?? {} }),
      );
    }
  }

  /**
   * Starts every enabled server at once; resolves when all first attempts ended, or after
   * `bootWaitMs`: the slow ones carry on in the background.
   */
  async start(): Promise<void> {
    const first = Promise.all([...this.#servers.values()].map((server) => server.start()));
    await waitAtMost(first, this.#bootWaitMs);
  }

  /** Resolves once every server's first attempt ended (each is bounded by its `startTimeoutMs`). */
  async settled(): Promise<void> {
    await Promise.all([...this.#servers.values()].map((server) => server.firstAttempt()));
  }

  /** Each configured server, in config order. */
  list(): McpServerStatus[] {
    return [...this.#servers.values()].map((server) => server.status());
  }

  get(name: string): McpServerStatus | undefined {
    return this.#servers.get(name)?.status();
  }

  /** True when an enabled server is not ready (starting, failed). */
  get degraded(): boolean {
    return [...this.#servers.values()].some(
      (server) => server.state === 'starting' || server.state === 'failed',
    );
  }

  /** No more retries (the kernel is closing). */
  stopRetrying(): void {
    for (const server of this.#servers.values()) server.stopRetrying();
  }

  /** Closes every connection; stdio children are stopped and awaited. */
  async close(): Promise<void> {
    await Promise.all([...this.#servers.values()].map((server) => server.close()));
  }
}
