import type { KernelView, Plugin } from '../../core/index.ts';
import { Cosmos } from './cosmos.ts';
import { tapCosmosRoutes } from './routes.ts';
import { COSMOS_CONFIG_SCHEMA, type CosmosConfig } from './types.ts';

export { COSMOS_NAMESPACE, Cosmos, DEFAULT_MAX_AGENTS } from './cosmos.ts';
export { COSMOS_ERROR_CODES, RETRY_AFTER_SECONDS } from './errors.ts';
export { type CosmosHooks, type DestroyReason, getCosmosHooks, type SpawnContext } from './hooks.ts';
export { CREATE_BODY, cosmosRoutes } from './routes.ts';
export {
  AGENT_ID_PATTERN,
  type AgentState,
  COSMOS_CONFIG_SCHEMA,
  type CosmosAgentInfo,
  type CosmosConfig,
  type CosmosContext,
  type CosmosOptions,
  type CosmosOverrides,
  type CosmosStats,
  type CreateOptions,
} from './types.ts';

declare module 'hubos' {
  interface HubosConfig {
    /** Cosmos, the agent lifecycle manager: capacity, idle eviction, persistence. */
    cosmos?: CosmosConfig;
  }
}

declare module 'hubos' {
  interface HubosServices {
    /** The kernel's Cosmos (from `configResolved` on). */
    cosmos: Cosmos;
  }
}

/**
 * The `cosmos` plugin: owns the `cosmos` config key (the options win over it), builds a Cosmos
 * over the kernel (the `cosmos` service), restores persisted agents in `ready`, and mounts its routes on HubOS.
 */
export default function cosmos(options: CosmosConfig = {}): Plugin {
  return {
    name: 'cosmos',
    provides: ['cosmos'],
    configSchema: { cosmos: COSMOS_CONFIG_SCHEMA },
    apply(kernel: KernelView) {
      let instance: Cosmos | undefined;
      kernel.hooks.configResolved.tap('cosmos', ({ config }) => {
        instance = new Cosmos({ ...config.cosmos, ...options, dependencies: kernel });
        kernel.provide('cosmos', instance);
      });
      // Restored before the server starts (`hubos serve` serves after boot); HubOS serves later agents too.
      kernel.hooks.ready.tapPromise('cosmos', async () => {
        await instance?.start();
      });
      tapCosmosRoutes(kernel, () => instance);
    },
  };
}
