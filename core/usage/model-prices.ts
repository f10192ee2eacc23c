/** What a model's tokens cost: USD per million tokens. */
export interface ModelPrice {
  /** Prompt tokens (those not read from the cache). */
  input: number;
  /** Answer tokens. */
  output: number;
  /** Prompt tokens read from the provider's cache (default: the `input` price). */
  cachedInput?: number;
}

/** Prices by model id (or id prefix): the built-in list, with the config's `pricing` over it. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * The providers' public list prices, USD per million tokens, as taken in 2025 (OpenAI's and
 * Anthropic's pricing pages). Prices change: the config's `pricing` overrides any of them and adds
 * models; a model in neither has no cost (never a guess).
 */
export const BUILT_IN_PRICES: PriceTable = {
  // OpenAI
  'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  o3: { input: 2, output: 8, cachedInput: 0.5 },
  'o4-mini': { input: 1.1, output: 4.4, cachedInput: 0.275 },
  // Anthropic
  'claude-opus-4': { input: 15, output: 75, cachedInput: 1.5 },
  'claude-sonnet-4': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-3-7-sonnet': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cachedInput: 0.08 },
};

/** The built-in prices with the config's `pricing` over them. */
export function priceTable(overrides: PriceTable | undefined): PriceTable {
  return { ...BUILT_IN_PRICES, ...overrides };
}
