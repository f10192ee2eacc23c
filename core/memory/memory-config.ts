import type { JSONSchemaObject } from '../json-schema.ts';

/** An agent's `memory`: `false` (the default) or what it remembers across sessions. */
export type AgentMemoryConfig = false | AgentMemoryParts;

export interface AgentMemoryParts {
  /**
   * Working memory: a small markdown document about the user, read into the instructions at each
   * run's start and rewritten by the agent with the `memory_update` tool. `template` is what an
   * empty one starts as (the headings to fill). Default on.
   */
  working?: boolean | { template?: string };
  /** Recall: the `memory_recall` tool, which searches the user's earlier sessions. `limit`: messages per search (default 8). Default on. */
  recall?: boolean | { limit?: number };
}

/**
 * The top-level `memory`: what every agent with memory shares. `embeddings` (an AI SDK embedding
 * model, `openai.embedding('text-embedding-3-small')`) makes recall also search by meaning.
 */
export interface MemoryConfig {
  embeddings?: EmbeddingModelLike;
  /** How many vectors of one user and agent a semantic search reads, newest first (default 1,000, at most 5,000). */
  maxVectors?: number;
}

/** What HubOS calls of an embedding model: the AI SDK's `doEmbed` (its V2, V3 and V4 specifications agree on it). */
export interface EmbeddingModelLike {
  doEmbed(options: { values: string[]; abortSignal?: AbortSignal }): PromiseLike<{
    embeddings: ArrayLike<number>[];
  }>;
  maxEmbeddingsPerCall?: number | undefined | PromiseLike<number | undefined>;
  readonly modelId?: string;
}

/** The most of a working memory document (characters): it is sent with every model call. */
export const MAX_WORKING_MEMORY = 8_000;
export const DEFAULT_RECALL_LIMIT = 8;
export const DEFAULT_MAX_VECTORS = 1_000;

export const AGENT_MEMORY_SCHEMA = {
  description:
    "What the agent remembers of a user across sessions: false (default), or { working, recall } (each true when left out). Kept per API key's principal and RunOptions.userId.",
  anyOf: [
    { const: false },
    {
      type: 'object',
      properties: {
        working: {
          description: 'Working memory read into the instructions, kept by the memory_update tool.',
          anyOf: [
            { type: 'boolean' },
            {
              type: 'object',
              properties: {
                template: {
                  type: 'string',
                  maxLength: MAX_WORKING_MEMORY,
                  description: 'What an empty working memory starts as.',
                },
              },
              additionalProperties: false,
            },
          ],
        },
        recall: {
          description: "The memory_recall tool, which searches the user's earlier sessions.",
          anyOf: [
            { type: 'boolean' },
            {
              type: 'object',
              properties: {
                limit: {
                  type: 'integer',
                  minimum: 1,
                  maximum: 50,
                  description: 'Messages a search returns (default 8).',
                },
              },
              additionalProperties: false,
            },
          ],
        },
      },
      additionalProperties: false,
    },
  ],
} as const satisfies JSONSchemaObject;

export const MEMORY_CONFIG_SCHEMA = {
  type: 'object',
  description: 'What agents with memory share: an embedding model for recall by meaning.',
  properties: {
    embeddings: {
      type: 'object',
      description:
        "An AI SDK embedding model (openai.embedding('text-embedding-3-small')): recall also searches by meaning.",
    },
    maxVectors: {
      type: 'integer',
      minimum: 1,
      maximum: 5_000,
      description: 'Vectors of one user and agent a semantic search reads, newest first (default 1000).',
    },
  },
  additionalProperties: false,
} as const satisfies JSONSchemaObject;

/** An agent's memory parts as they apply: which are on, with their options. */
export interface ResolvedMemory {
  working: { template: string } | undefined;
  recall: { limit: number } | undefined;
}

/** What `memory` turns on for an agent; undefined when nothing. */
export function resolveMemory(config: AgentMemoryConfig | undefined): ResolvedMemory | undefined {
  if (config === undefined || config === false) return undefined;
  const working = config.working ?? true;
  const recall = config.recall ?? true;
  const resolved: ResolvedMemory = {
    working:
      working === false ? undefined : { template: (working === true ? undefined : working.template) ?? '' },
    recall:
      recall === false
        ? undefined
        : { limit: (recall === true ? undefined : recall.limit) ?? DEFAULT_RECALL_LIMIT },
  };
  return resolved.working || resolved.recall ? resolved : undefined;
}
