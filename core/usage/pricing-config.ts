/** `pricing` in the config: USD per million tokens by model id (or id prefix), over the built-in list. */
export const PRICING_CONFIG_SCHEMA = {
  type: 'object',
  description:
    'Prices of models, USD per million tokens, by model id (a dated id such as gpt-4.1-mini-2025-04-14 takes the price of its longest known prefix). Overrides the built-in list prices (2025) and adds models; a model with no price has tokens but no cost.',
  propertyNames: { minLength: 1, maxLength: 200 },
  additionalProperties: {
    type: 'object',
    required: ['input', 'output'],
    properties: {
      input: { type: 'number', minimum: 0, description: 'USD per million prompt tokens.' },
      output: { type: 'number', minimum: 0, description: 'USD per million answer tokens.' },
      cachedInput: {
        type: 'number',
        minimum: 0,
        description: "USD per million prompt tokens read from the provider's cache (default: input).",
      },
    },
    additionalProperties: false,
  },
} as const;
