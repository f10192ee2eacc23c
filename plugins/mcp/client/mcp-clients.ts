import { HubosError, type Logger, type Registry, type Store } from '../../../core/index.ts';
import type { McpConfig } from '../config.ts';
import { checkServerConfig } from './config-check.ts';
import type { McpServerConnection } from './server-connection.ts';
import type { McpServerStatus } from './status.ts';
import { waitAtMost } from './timeouts.ts';

/** How long boot waits for the servers' first attempts by default. */
export const DEFAULT_BOOT_WAIT_MS = 10_000;

export interface McpClientsOptions {
  registry: Registry;
  logger: Logger;
  baseDir: string;
  version: string;
  /** Where OAuth tokens and registrations are kept (namespaces `mcp-oauth:<server>`). */
  store: Store;
  /** The sandbox root, the one root servers are told about. */
  workspaceRoot: string;
}

/** The configured MCP servers of one kernel, as tool sources: `kernel.service('mcp').clients`. */
export class McpClients {
  readonly #servers = new Map<string, McpServerConnection>();
  readonly #bootWaitMs: number;
  readonly #config: McpConfig;
  readonly #options: McpClientsOptions;

  constructor(config: McpConfig, options: McpClientsOptions) {
    this.#config = config;
    this.#options = options;
    this.#bootWaitMs = config.bootWaitMs ?? DEFAULT_BOOT_WAIT_MS;
    if (config.onAuthorize !== undefined && typeof config.onAuthorize !== 'function')
      throw new HubosError(
        'CONFIG_INVALID',
        'mcp.onAuthorize must be a function, ({ server, url, expiresAt }) => ..., given in agent.config.ts or the plugin options',
      );
    const servers = Object.entries(config.servers ?? {});
    // Every server's config is checked before any starts: a wrong one stops the boot, saying why.
    for (const [name, server] of servers) checkServerConfig(name, server);
  }

  /**
   * Starts every enabled server at once; resolves when all first attempts ended, or after
   * `bootWaitMs`: the slow ones carry on in the background.
   */
  async start(): Promise<void> {
    // The MCP SDK and the connection machinery load here, when servers are configured and started.
    const { McpServerConnection } = await import('./server-connection.ts');
    const config = this.#config;
    for (const [name, server] of Object.entries(config.servers ?? {})) {
      this.#servers.set(
        name,
        new McpServerConnection(name, server, {
          ...this.#options,
          restart: config.restart ?? {},
          ...(config.onAuthorize ? { onAuthorize: config.onAuthorize } : {}),
        }),
      );
    }
    const first = Promise.all([...this.#servers.values()].map((server) => server.start()));
    await waitAtMost(first, this.#bootWaitMs);
  }

  /**
   * Resolves once every server's first attempt ended: each is bounded by its `startTimeoutMs`, and
   * by `auth.authorizationTimeoutMs` while a person is asked to authorize HubOS.
   */
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

  /** True when an enabled server is not ready (starting, authorizing, failed). */
  get degraded(): boolean {
    return [...this.#servers.values()].some(
      (server) => server.state === 'starting' || server.state === 'authorizing' || server.state === 'failed',
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
