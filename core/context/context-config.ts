import { TOOL_RESULTS_CONFIG_SCHEMA, type ToolResultsConfig } from './tool-results-config.ts';

/** `context` of an agent, and at top level every agent's default: what the model is sent of a run. */
export interface ContextConfig {
  /** Tool results too large for the model: kept whole, the model gets their beginning and a handle. */
  toolResults?: ToolResultsConfig;
}

export const CONTEXT_CONFIG_SCHEMA = {
  type: 'object',
  description: "What the model is sent of a run's context; at top level, every agent's default.",
  properties: {
    toolResults: TOOL_RESULTS_CONFIG_SCHEMA,
  },
  additionalProperties: false,
} as const;
