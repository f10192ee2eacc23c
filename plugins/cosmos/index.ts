import { HubosError, KERNEL_OF, type KernelView, type Plugin } from '../../core/index.ts';
import { Cosmos } from './cosmos.ts';
import { tapCosmosRoutes } from './routes.ts';
import { COSMOS_CONFIG_SCHEMA, type CosmosConfig } from './types.ts';

export { COSMOS_NAMESPACE, Cosmos, DEFAULT_MAX_AGENTS } from './cosmos.ts';
export { type CosmosHooks, type DestroyReason, getCosmosHooks, type SpawnContext } from './hooks.ts';
export { CREATE_BODY, cosmosRoutes, RETRY_AFTER_SECONDS } from './routes.ts';
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

declare module '../../core/config.js' {
  interface HubosConfig {
    /** Cosmos, the agent lifecycle manager: capacity, idle eviction, persistence. */
    cosmos?: CosmosConfig;
  }
}

const instances = new WeakMap<object, Cosmos>();

/** The Cosmos the plugin built for this kernel (from `configResolved` on). */
export function getCosmos(kernel: { readonly [KERNEL_OF]: object }): Cosmos {
  const cosmos = instances.get(kernel[KERNEL_OF]);
  if (!cosmos)
    throw new HubosError(
      'KERNEL_STATE',
      'no Cosmos on this kernel: add the cosmos plugin and boot the kernel',
    );
  return cosmos;
}

/**
 * The `cosmos` plugin: owns the `cosmos` config key (the options win over it), builds a Cosmos
 * over the kernel, restores persisted agents in `ready`, and adds its routes to HubOS.
 */
export default function cosmos(options: CosmosConfig = {}): Plugin {
  return {
    name: 'cosmos',
    configSchema: { cosmos: COSMOS_CONFIG_SCHEMA },
    apply(kernel: KernelView) {
      const key = kernel[KERNEL_OF];
      let instance: Cosmos | undefined;
      kernel.hooks.configResolved.tap('cosmos', ({ config }) => {
        instance = new Cosmos({ ...config.cosmos, ...options, dependencies: kernel });
        instances.set(key, instance);
      });
      // Restored before the server starts (`hubos serve` serves after boot); HubOS serves later agents too.
      kernel.hooks.ready.tapPromise('cosmos', async () => {
        if (instance?.persist) await instance.restore();
      });
      tapCosmosRoutes(kernel, () => instance);
    },
  };
}
