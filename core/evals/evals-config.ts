/** `evals` in the config: what evaluations use when a dataset or scorer says nothing. */
export interface EvalsConfig {
  /** The model the `judge` scorer asks when its options name none (default: the evaluated agent's). */
  judge?: string;
}

export const EVALS_CONFIG_SCHEMA = {
  type: 'object',
  description: 'Evaluations (hubos eval, evaluate()): defaults for scorers.',
  properties: {
    judge: {
      type: 'string',
      minLength: 1,
      description:
        "The model reference the judge scorer asks when its options name none, e.g. 'openai:gpt-4.1' (default: the evaluated agent's model).",
    },
  },
  additionalProperties: false,
} as const;
