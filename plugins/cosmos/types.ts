import type { KernelView, ModelObject, Usage } from '../../core/index.ts';

/** The `cosmos` config key. */
export interface CosmosConfig {
  /**
   * How many agents Cosmos holds at once (default 50); `create` fails with `COSMOS_FULL` beyond it.
   * With `persist` or a shared bus, the stored definitions count: one limit for every instance on the store.
   */
  maxAgents?: number;
  /** Destroy agents idle (no run) for this long, in ms; off when omitted. Running agents are never evicted. */
  idleTtlMs?: number;
  /** Keep agent definitions in the store and restore them at startup (default false; always on a shared bus). */
  persist?: boolean;
}

export interface CosmosOptions extends CosmosConfig {
  /** The kernel (or the view a plugin's `apply()` received) agents are created in. */
  dependencies: KernelView;
}

/** Who asks, passed to the hooks; a signal aborted before the agent is built cancels the create. */
export interface CosmosContext {
  signal?: AbortSignal;
  /** Free-form facts about the caller (e.g. `{ via: 'http' }`). */
  [key: string]: unknown;
}

/** What an agent may change of its template. */
export interface CosmosOverrides {
  instructions?: string;
  /** A model reference, or (not with `persist`) a model object. */
  model?: string | ModelObject;
  tools?: string[];
  /** Merged over the template's metadata. */
  metadata?: Record<string, unknown>;
}

export interface CreateOptions extends CosmosOverrides {
  agentId: string;
  /** A key of the config's `agents`: the template the agent is built from. */
  templateId: string;
  /**
   * Who the agent belongs to: a principal's id (`POST /api/cosmos/agents` sets the caller's). Over
   * HTTP only that principal and admin keys see or delete it. None (the default in code): a shared
   * agent, listed to every caller, deleted over HTTP by admins only.
   */
  owner?: string;
}

export type AgentState = 'idle' | 'running';

/** What Cosmos knows of one of its agents. */
export interface CosmosAgentInfo {
  id: string;
  template: string;
  /** The principal id it belongs to; absent for a shared agent (created in code or by Stars). */
  owner?: string;
  state: AgentState;
  /** ISO times. */
  createdAt: string;
  lastActiveAt: string;
  /** Runs finished (completed, cancelled or failed). */
  runs: number;
  usage: Usage;
}

export interface CosmosStats {
  capacity: number;
  count: number;
  byTemplate: Record<string, number>;
  byState: Record<AgentState, number>;
  totals: { created: number; deleted: number; evicted: number };
  agents: CosmosAgentInfo[];
}

/** The ids agents may have: they appear in URLs (`/api/agents/:id/run`). */
export const AGENT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';

export const COSMOS_CONFIG_SCHEMA = {
  type: 'object',
  description: 'Cosmos, the agent lifecycle manager: capacity, idle eviction, persistence.',
  properties: {
    maxAgents: { type: 'integer', minimum: 1, description: 'Agents held at once (default 50).' },
    idleTtlMs: {
      type: 'integer',
      minimum: 1,
      description: 'Evict agents idle this long (ms); off by default.',
    },
    persist: { type: 'boolean', description: 'Keep definitions in the store and restore them at startup.' },
  },
  additionalProperties: false,
} as const;
