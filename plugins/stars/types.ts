import type { AgentEvent, Store, Usage } from '../../core/index.ts';

export const RoleLeader = 'leader';
export const RoleWorker = 'worker';
export type StarsRole = typeof RoleLeader | typeof RoleWorker;

/** One member of a team as `members()` lists it. */
export interface StarsMember {
  agentId: string;
  role: StarsRole;
  description: string;
}

/** A message between members: `to` is the recipient, or `'*'` for a broadcast. */
export interface StarsMessage {
  seq: number;
  from: string;
  to: string;
  content: string;
  /** `message` (sent by a member or the API), `result` (a delegated worker's result to the leader). */
  kind: 'message' | 'result';
  at: string;
}

export interface StarsOptions {
  /** How many messages `history()` keeps, oldest dropped first (default 1000). */
  historyLimit?: number;
  /** Where the history is kept (namespace `stars`, key: the team's name); default: memory. */
  store?: Store;
  /** Model turns (agent runs) a member may take in one collaborative run (default 20). */
  maxTurns?: number;
}

/** A delegated task and how it went. */
export interface StarsDelegation {
  worker: string;
  task: string;
  ok: boolean;
  /** The worker's answer when ok. */
  result?: string;
  error?: { code: string; message: string };
}

export interface StarsRunResult {
  team: string;
  runId: string;
  status: 'completed' | 'cancelled' | 'failed';
  /** The leader's final answer. */
  text: string;
  delegations: StarsDelegation[];
  /** Messages exchanged during the run (results included), in order. */
  messages: StarsMessage[];
  /** Tokens used, per member id. */
  usage: Record<string, Usage>;
  error?: { code: string; message: string };
}

/** What `stream()` yields: every agent event tagged with the member that produced it, plus the team's own. */
export type StarsEvent =
  | (AgentEvent & { member: string; role: StarsRole })
  | { type: 'stars-delegation'; member: string; role: StarsRole; worker: string; task: string }
  | { type: 'stars-delegation-result'; member: string; role: StarsRole; delegation: StarsDelegation }
  | { type: 'stars-message'; member: string; role: StarsRole; message: StarsMessage }
  | { type: 'stars-finish'; member: string; role: StarsRole; result: StarsRunResult };

/** One member in the `stars` config: `agent` names the template, `id` the member agent built from it. */
export interface StarsMemberConfig {
  agent: string;
  role: StarsRole;
  /** The member agent's id in Cosmos (default: `<team>-<agent>`). */
  id?: string;
}

export interface StarsTeamConfig {
  members: StarsMemberConfig[];
  historyLimit?: number;
  maxTurns?: number;
}

/** The `stars` config key: teams by name. */
export type StarsConfig = Record<string, StarsTeamConfig>;

export const STARS_CONFIG_SCHEMA = {
  type: 'object',
  description: 'Stars teams by name: their members (template + role) and limits.',
  additionalProperties: {
    type: 'object',
    properties: {
      members: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            agent: { type: 'string', minLength: 1, description: "A key of the config's `agents`." },
            role: { type: 'string', enum: [RoleLeader, RoleWorker] },
            id: {
              type: 'string',
              minLength: 1,
              description: 'The member agent id (default <team>-<agent>).',
            },
          },
          required: ['agent', 'role'],
          additionalProperties: false,
        },
      },
      historyLimit: { type: 'integer', minimum: 1 },
      maxTurns: { type: 'integer', minimum: 1 },
    },
    required: ['members'],
    additionalProperties: false,
  },
} as const;
