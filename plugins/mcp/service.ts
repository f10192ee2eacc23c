import { HubosError } from '../../core/index.ts';
import type { McpClients } from './client/mcp-clients.ts';
import type { McpConfig, McpServeConfig } from './config.ts';

/**
 * The `mcp` service: the MCP servers used as tool sources, what HubOS serves to MCP clients, and
 * the kernel's agent changes that servers tell their clients about (`ask_<agent>` tools).
 */
export class McpService {
  readonly #config: () => McpConfig;
  readonly #agentListeners = new Set<() => void>();
  #clients: McpClients | undefined;

  constructor(config: () => McpConfig) {
    this.#config = config;
  }

  /** The configured MCP servers as tool sources (from the `registerTools` hook on). */
  get clients(): McpClients {
    if (!this.#clients)
      throw new HubosError(
        'KERNEL_STATE',
        'the MCP clients start in the "registerTools" hook: use them after it',
      );
    return this.#clients;
  }

  /** @internal the plugin hands over its clients once it started them. */
  attach(clients: McpClients): void {
    this.#clients = clients;
  }

  /** The merged config: the plugin's options over the config's `mcp` key. */
  get config(): McpConfig {
    return this.#config();
  }

  /**
   * What to serve over stdio: the config's `serve`. `serve: false` only turns the HTTP endpoint
   * off, so stdio serves the defaults then.
   */
  serveConfig(): McpServeConfig {
    return this.#config().serve || {};
  }

  /** Calls `listener` when an agent is created or destroyed; returns the unsubscribe function. */
  onAgentsChange(listener: () => void): () => void {
    this.#agentListeners.add(listener);
    return () => this.#agentListeners.delete(listener);
  }

  /** @internal called by the plugin's agent lifecycle taps. */
  agentsChanged(): void {
    for (const listener of this.#agentListeners) listener();
  }
}
