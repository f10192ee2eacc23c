import type { ModelPrice, PriceTable } from './model-prices.ts';

/**
 * The price of model `model`: its exact id, else the longest known id it starts with followed by
 * `-` (a dated release, `claude-sonnet-4-20250514`, `gpt-4.1-mini-2025-04-14`), so `gpt-4.1-mini`
 * is not priced as `gpt-4.1`. A step's `provider:id` is found as it is, else by its id. Undefined: unknown.
 */
export function priceOf(model: string, table: PriceTable): ModelPrice | undefined {
  return byModelId(model, table);
}

/** The entry of `table` for `model`, found as `priceOf` finds a price (model limits are found so too). */
export function byModelId<T>(model: string, table: Readonly<Record<string, T>>): T | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  const id = model.includes(':') ? model.slice(model.indexOf(':') + 1) : model;
  if (Object.hasOwn(table, id)) return table[id];
  let best: string | undefined;
  for (const known of Object.keys(table)) {
    if (id.startsWith(`${known}-`) && (best === undefined || known.length > best.length)) best = known;
  }
  return best === undefined ? undefined : table[best];
}
