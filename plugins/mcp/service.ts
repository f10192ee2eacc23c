import { HubosError } from '../../core/index.ts';
import type { McpClients } from './client/mcp-clients.ts';
import type { McpConfig, McpServeConfig } from './config.ts';

/**
 * The `mcp` service: the MCP servers used as tool sources, what HubOS serves to MCP clients, and
 * the kernel's agent changes that servers tell their clients about (`ask_<agent>` tools).
 */
export class McpService {
  readonly #config: () => McpConfig;
  readonly #clients: () => McpClients | undefined;
  readonly #agentListeners: Set<() => void>;

  /** @internal the mcp plugin builds it over what it owns: its config, its clients, its agent listeners. */
  constructor(
    config: () => McpConfig,
    clients: () => McpClients | undefined,
    agentListeners: Set<() => void>,
  ) {
    this.#config = config;
    this.#clients = clients;
    this.#agentListeners = agentListeners;
  }

  /** The configured MCP servers as tool sources (from the `registerTools` hook on). */
  get clients(): McpClients {
    const clients = this.#clients();
    if (!clients)
      throw new HubosError(
        'KERNEL_STATE',
        'the MCP clients start in the "registerTools" hook: use them after it',
      );
    return clients;
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
}
