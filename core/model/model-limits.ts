import { byModelId } from '../usage/price-of.ts';

/** How much a model takes in and gives out, in tokens. */
export interface ModelLimits {
  /** The whole request (instructions, tools, messages) plus the answer must fit in it. */
  contextWindow: number;
  /** The longest answer it gives. */
  maxOutput: number;
}

/** Limits by model id (or id prefix): the built-in list, with the config's `modelLimits` over it. */
export type ModelLimitsTable = Readonly<Record<string, ModelLimits>>;

/**
 * The providers' published limits (their model pages, 2025). A model in neither this list nor the
 * config's `modelLimits` has no known window: compaction then needs `contextWindow` set on the agent.
 */
export const BUILT_IN_MODEL_LIMITS: ModelLimitsTable = {
  // OpenAI
  'gpt-4.1': { contextWindow: 1_047_576, maxOutput: 32_768 },
  'gpt-4.1-mini': { contextWindow: 1_047_576, maxOutput: 32_768 },
  'gpt-4.1-nano': { contextWindow: 1_047_576, maxOutput: 32_768 },
  'gpt-4o': { contextWindow: 128_000, maxOutput: 16_384 },
  'gpt-4o-mini': { contextWindow: 128_000, maxOutput: 16_384 },
  'gpt-5': { contextWindow: 400_000, maxOutput: 128_000 },
  'gpt-5-mini': { contextWindow: 400_000, maxOutput: 128_000 },
  'gpt-5-nano': { contextWindow: 400_000, maxOutput: 128_000 },
  o3: { contextWindow: 200_000, maxOutput: 100_000 },
  'o4-mini': { contextWindow: 200_000, maxOutput: 100_000 },
  // Anthropic
  'claude-opus-4': { contextWindow: 200_000, maxOutput: 32_000 },
  'claude-opus-4-1': { contextWindow: 200_000, maxOutput: 32_000 },
  'claude-sonnet-4': { contextWindow: 200_000, maxOutput: 64_000 },
  'claude-sonnet-4-5': { contextWindow: 200_000, maxOutput: 64_000 },
  'claude-haiku-4-5': { contextWindow: 200_000, maxOutput: 64_000 },
  'claude-3-7-sonnet': { contextWindow: 200_000, maxOutput: 64_000 },
  'claude-3-5-haiku': { contextWindow: 200_000, maxOutput: 8_192 },
};

/** The built-in limits with the config's `modelLimits` over them. */
export function modelLimitsTable(overrides: ModelLimitsTable | undefined): ModelLimitsTable {
  return { ...BUILT_IN_MODEL_LIMITS, ...overrides };
}

/**
 * The limits of model `model` (`provider:id` or an id): its exact id, else the longest known id it
 * starts with followed by `-` (a dated release), as prices are found. Undefined: unknown.
 */
export function limitsOf(model: string, table: ModelLimitsTable): ModelLimits | undefined {
  return byModelId(model, table);
}

/** `modelLimits` in the config: context window and output limit by model id (or id prefix). */
export const MODEL_LIMITS_CONFIG_SCHEMA = {
  type: 'object',
  description:
    "Context windows and output limits of models, in tokens, by model id (a dated id takes the limits of its longest known prefix). Overrides the built-in list and adds models (a local model's, say): compaction and large tool results are sized from them.",
  propertyNames: { minLength: 1, maxLength: 200 },
  additionalProperties: {
    type: 'object',
    required: ['contextWindow'],
    properties: {
      contextWindow: { type: 'integer', minimum: 256, description: 'Tokens the request and answer share.' },
      maxOutput: {
        type: 'integer',
        minimum: 1,
        description: 'The longest answer, in tokens (default 4096).',
      },
    },
    additionalProperties: false,
  },
} as const;
