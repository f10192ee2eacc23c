import { HubosError } from '../errors.ts';

/** `context.toolResults`: how a tool result too large for the model is handled (false: sent whole). */
export type ToolResultsConfig =
  | false
  | {
      /** A result estimated over this many tokens is kept whole and the model gets its beginning (default 20,000). */
      maxTokens?: number;
      /** How many tokens of a kept result's beginning the model gets (default 2,000). */
      headTokens?: number;
    };

/** `context.toolResults` with its defaults applied. */
export interface ToolResultsLimits {
  maxTokens: number;
  headTokens: number;
}

export const DEFAULT_TOOL_RESULTS: ToolResultsLimits = { maxTokens: 20_000, headTokens: 2_000 };

export const TOOL_RESULTS_CONFIG_SCHEMA = {
  description:
    'Tool results too large for the model: one over maxTokens is kept whole (per principal, for as long as runs are kept) and the model gets its first headTokens with a handle its read_result tool reads more of. false sends every result whole.',
  anyOf: [
    { const: false },
    {
      type: 'object',
      properties: {
        maxTokens: {
          type: 'integer',
          minimum: 100,
          description: 'A result over this many tokens (estimated) is kept and shortened (default 20000).',
        },
        headTokens: {
          type: 'integer',
          minimum: 50,
          description: "How many tokens of a kept result's beginning the model gets (default 2000).",
        },
      },
      additionalProperties: false,
    },
  ],
} as const;

/**
 * The limits a run applies: the agent's `context.toolResults` over the config's, then the defaults;
 * undefined when either says false (the agent's word first). Throws CONFIG_INVALID when the head
 * would not be shorter than the limit.
 */
export function toolResultsLimits(
  where: string,
  own: ToolResultsConfig | undefined,
  global: ToolResultsConfig | undefined,
): ToolResultsLimits | undefined {
  const chosen = own ?? global;
  if (chosen === false) return undefined;
  const limits = { ...DEFAULT_TOOL_RESULTS, ...(global || {}), ...(own || {}) };
  if (limits.headTokens >= limits.maxTokens)
    throw new HubosError(
      'CONFIG_INVALID',
      `${where}.toolResults: headTokens (${limits.headTokens}) must be less than maxTokens (${limits.maxTokens}): the model gets the head of a result that passed maxTokens. Lower headTokens or raise maxTokens.`,
    );
  return limits;
}
