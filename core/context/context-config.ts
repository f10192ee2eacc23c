import { HubosError } from '../errors.ts';
import { TOOL_RESULTS_CONFIG_SCHEMA, type ToolResultsConfig } from './tool-results-config.ts';

/** How an agent's conversation is kept inside its model's context window. */
export interface CompactionConfig {
  /** The share of the context window a request may fill before older turns are summarized (default 0.85). */
  threshold?: number;
  /** The last turns kept verbatim, never summarized (default 4). */
  keepTurns?: number;
  /** The model that writes summaries (a reference); default: the run's own. */
  model?: string;
  /** The model's context window in tokens, for a model the built-in list and `modelLimits` do not know. */
  contextWindow?: number;
}

/** `context` on an agent, and at top level as every agent's default. */
export interface ContextConfig {
  /** Summarize older turns when a request nears the context window; `false`: never (default: on when the window is known). */
  compaction?: false | CompactionConfig;
  /** Tool results too large for the model: kept whole, the model gets their beginning and a handle. */
  toolResults?: ToolResultsConfig;
}

export const DEFAULT_THRESHOLD = 0.85;
export const DEFAULT_KEEP_TURNS = 4;

/** The compaction settings of one agent, with defaults applied; `explicit`: its config asked for it by name. */
export interface ResolvedCompaction {
  threshold: number;
  keepTurns: number;
  model?: string;
  contextWindow?: number;
  explicit: boolean;
}

const COMPACTION_SCHEMA = {
  anyOf: [
    { const: false },
    {
      type: 'object',
      properties: {
        threshold: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: 1,
          description:
            'The share of the context window a request may fill before older turns are summarized (default 0.85).',
        },
        keepTurns: {
          type: 'integer',
          minimum: 1,
          maximum: 1000,
          description: 'The last turns kept verbatim, never summarized (default 4).',
        },
        model: {
          type: 'string',
          minLength: 1,
          description:
            "The model that writes summaries, a reference such as 'openai:gpt-4.1-mini' (default: the run's).",
        },
        contextWindow: {
          type: 'integer',
          minimum: 256,
          description:
            "The model's context window in tokens, for a model neither the built-in list nor modelLimits knows.",
        },
      },
      additionalProperties: false,
    },
  ],
  description:
    'Summarize the older part of a conversation when a request nears the context window (false: never). On by default for models whose window is known.',
} as const;

/** `context` in the config (an agent's, or the top-level default of every agent). */
export const CONTEXT_CONFIG_SCHEMA = {
  type: 'object',
  description:
    'What the model is sent of a run: compaction of older turns near the context window, large tool results cut to a head and a handle.',
  properties: { compaction: COMPACTION_SCHEMA, toolResults: TOOL_RESULTS_CONFIG_SCHEMA },
  additionalProperties: false,
} as const;

/**
 * An agent's compaction: its own `context.compaction` over the top-level one, field by field;
 * undefined when either says `false`.
 */
export function resolveCompaction(
  agent: string,
  own: ContextConfig | undefined,
  global: ContextConfig | undefined,
): ResolvedCompaction | undefined {
  const mine = own?.compaction;
  const theirs = global?.compaction;
  if (mine === false || (mine === undefined && theirs === false)) return undefined;
  const merged: CompactionConfig = { ...(theirs || {}), ...(mine || {}) };
  const threshold = merged.threshold ?? DEFAULT_THRESHOLD;
  const keepTurns = merged.keepTurns ?? DEFAULT_KEEP_TURNS;
  // Configs given in code skip the schema: checked again here.
  if (!(threshold > 0 && threshold <= 1))
    throw invalid(agent, `threshold must be a number in (0, 1], got ${JSON.stringify(threshold)}`);
  if (!Number.isInteger(keepTurns) || keepTurns < 1)
    throw invalid(agent, `keepTurns must be a whole number ≥ 1, got ${JSON.stringify(keepTurns)}`);
  if (
    merged.contextWindow !== undefined &&
    !(Number.isInteger(merged.contextWindow) && merged.contextWindow >= 256)
  )
    throw invalid(
      agent,
      `contextWindow must be a whole number of tokens ≥ 256, got ${JSON.stringify(merged.contextWindow)}`,
    );
  return {
    threshold,
    keepTurns,
    ...(merged.model !== undefined ? { model: merged.model } : {}),
    ...(merged.contextWindow !== undefined ? { contextWindow: merged.contextWindow } : {}),
    explicit: mine !== undefined || theirs !== undefined,
  };
}

function invalid(agent: string, what: string): HubosError {
  return new HubosError('AGENT_INVALID', `agent "${agent}": context.compaction.${what}`, {
    details: { agent },
  });
}
