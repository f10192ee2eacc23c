import { AsyncSeriesHook } from 'tapable';
import { type AgentSpec, createHooksAccessor, type TapMeta } from '../../core/index.ts';
import type { Cosmos } from './cosmos.ts';
import type { CosmosAgentInfo, CosmosContext } from './types.ts';

/** What `spawn` sees before the agent is built: taps may change `spec` (not its name) or throw to refuse. */
export interface SpawnContext {
  cosmos: Cosmos;
  agentId: string;
  templateId: string;
  /** The spec the agent will be built from: its template with the overrides applied. */
  spec: AgentSpec;
  ctx: CosmosContext;
}

/** Why an agent left Cosmos: deleted, destroyed from outside (`kernel.destroyAgent`), the kernel closing, or idle eviction. */
export type DestroyReason = 'deleted' | 'destroyed' | 'close' | 'evicted';

/**
 * Cosmos's own hooks, reached with `getCosmosHooks(kernel)`: `spawn` (before an agent is built),
 * `spawned` (it exists), `destroyed` (it is gone, with the reason) and `evicted` (idle eviction
 * removed it; `destroyed` fires too).
 */
export const getCosmosHooks = createHooksAccessor('cosmos', () => ({
  spawn: new AsyncSeriesHook<[SpawnContext], TapMeta>(['context']),
  spawned: new AsyncSeriesHook<[{ cosmos: Cosmos; agent: CosmosAgentInfo; ctx: CosmosContext }], TapMeta>([
    'context',
  ]),
  destroyed: new AsyncSeriesHook<
    [{ cosmos: Cosmos; agent: CosmosAgentInfo; reason: DestroyReason }],
    TapMeta
  >(['context']),
  evicted: new AsyncSeriesHook<[{ cosmos: Cosmos; agent: CosmosAgentInfo; idleMs: number }], TapMeta>([
    'context',
  ]),
}));

export type CosmosHooks = ReturnType<typeof getCosmosHooks>;
