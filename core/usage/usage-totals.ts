import { roundUsd } from './cost-of.ts';

/** Sums of model calls: what the usage report gives for a whole range, a bucket or a group. */
export interface UsageTotals {
  /** Runs that made model calls (each counted once). */
  runs: number;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** The part of inputTokens read from the providers' caches. */
  cachedInputTokens: number;
  /**
   * USD of the calls whose model has a price; null when none of them had one (the report's
   * `unpricedModels` names the models left out).
   */
  cost: number | null;
}

/** A running sum of usage parts, each with its cost or null for a model with no price. */
export class UsageSum {
  readonly #total: UsageTotals = {
    runs: 0,
    modelCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    cost: 0,
  };
  #calls = 0;
  #priced = 0;

  add(part: UsageTotals): this {
    const total = this.#total;
    total.runs += part.runs;
    total.modelCalls += part.modelCalls;
    total.inputTokens += part.inputTokens;
    total.outputTokens += part.outputTokens;
    total.cachedInputTokens += part.cachedInputTokens;
    this.#calls += part.modelCalls;
    if (part.cost !== null) {
      total.cost = roundUsd((total.cost ?? 0) + part.cost);
      this.#priced += part.modelCalls;
    }
    return this;
  }

  /** The sums; cost null when there were calls and none had a price. */
  totals(): UsageTotals {
    return { ...this.#total, cost: this.#calls > 0 && this.#priced === 0 ? null : this.#total.cost };
  }
}
