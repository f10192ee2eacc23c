import { HubosError } from '../errors.ts';
import { costOf, roundUsd } from '../usage/cost-of.ts';
import type { PriceTable } from '../usage/model-prices.ts';
import type { Usage } from './messages.ts';

/**
 * Hard limits on a run: past any of them it stops, failed with `BUDGET_EXCEEDED` naming the budget.
 * Unlike `maxSteps` (the loop's natural end, a completed run), a budget is a guard against a run
 * that costs more than it may.
 */
export interface RunBudget {
  /** Model calls. */
  steps?: number;
  /** Tokens in and out, summed over the run's model calls and the sub-agents it ran. */
  tokens?: number;
  /** US dollars, as the config's `pricing` prices the run's model: a model without a price cannot have one. */
  costUsd?: number;
  /** Wall-clock milliseconds from the run's start (a resumed run's: from its resumption). */
  timeMs?: number;
}

export type BudgetName = keyof RunBudget;

/** Which budget stopped a run, its limit and what had been used when it was checked. */
export interface BudgetExceeded {
  budget: BudgetName;
  limit: number;
  used: number;
}

/**
 * The longest time budget: the longest delay a timer takes (about 24.8 days). A longer one would
 * fire at once (Node clamps it to 1 ms) and fail the run the moment it starts.
 */
export const MAX_TIME_BUDGET_MS = 2_147_483_647;

export const BUDGET_SCHEMA = {
  type: 'object',
  description: 'Hard limits on each run: past one, the run fails with BUDGET_EXCEEDED naming it.',
  properties: {
    steps: { type: 'integer', minimum: 1, maximum: 100_000, description: 'Model calls.' },
    tokens: { type: 'integer', minimum: 1, description: "Tokens in and out (sub-agents' included)." },
    costUsd: { type: 'number', exclusiveMinimum: 0, description: 'US dollars, priced by `pricing`.' },
    timeMs: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_TIME_BUDGET_MS,
      description: 'Wall-clock milliseconds from the start (at most 2147483647, about 24.8 days).',
    },
  },
  additionalProperties: false,
} as const;

const NAMES: readonly BudgetName[] = ['steps', 'tokens', 'costUsd', 'timeMs'];

/**
 * The budget a run gets: its agent's, each limit tightened by the run's own. A caller can only
 * lower its agent's limits, never raise them.
 */
export function runBudget(
  agent: RunBudget | undefined,
  run: RunBudget | undefined,
  who = 'budget',
): RunBudget | undefined {
  if (!agent && !run) return undefined;
  if (agent) checkBudget(agent, who);
  if (run) checkBudget(run, who);
  const budget: RunBudget = {};
  for (const name of NAMES) {
    const limits = [agent?.[name], run?.[name]].filter((limit) => limit !== undefined);
    if (limits.length > 0) budget[name] = Math.min(...limits);
  }
  return budget;
}

/** A run's budget as it goes: told each step and each usage, it throws once a limit is passed. */
export class BudgetMeter {
  readonly #budget: RunBudget;
  readonly #prices: PriceTable;
  #costUsd = 0;

  /**
   * `fallbacks`: the other models the run may call (its fallback chain's after the first, its
   * summarizer). Each is priced as itself: a cost budget needs the price of every one.
   */
  constructor(
    budget: RunBudget,
    prices: PriceTable,
    model: string,
    who: string,
    fallbacks: readonly string[] = [],
  ) {
    if (budget.costUsd !== undefined)
      for (const ref of [model, ...fallbacks])
        if (costOf(ref, {}, prices) === null)
          throw new HubosError(
            'BUDGET_INVALID',
            `${who}: a costUsd budget needs the price of model "${ref}"${ref === model ? '' : ' (a fallback of its model or its summarizer, priced as itself)'}: add it under "pricing" in agent.config.ts`,
            { details: { model: ref } },
          );
    this.#budget = budget;
    this.#prices = prices;
  }

  /** The run's wall-clock limit, if it has one. */
  get timeMs(): number | undefined {
    return this.#budget.timeMs;
  }

  /** Before model call `step` (from 1), with the usage so far: throws when a budget is spent. */
  beforeStep(step: number, total: Usage): void {
    const { steps, tokens, costUsd } = this.#budget;
    if (steps !== undefined && step > steps)
      throw exceeded({ budget: 'steps', limit: steps, used: step - 1 });
    const used = total.inputTokens + total.outputTokens;
    if (tokens !== undefined && used >= tokens) throw exceeded({ budget: 'tokens', limit: tokens, used });
    if (costUsd !== undefined && this.#costUsd >= costUsd)
      throw exceeded({ budget: 'costUsd', limit: costUsd, used: this.#costUsd });
  }

  /** Usage added to the run (a model call's, a sub-agent's), priced as `model`'s. */
  note(model: string, more: Partial<Usage> | undefined): void {
    if (this.#budget.costUsd !== undefined && more)
      this.#costUsd = roundUsd(this.#costUsd + (costOf(model, more, this.#prices) ?? 0));
  }

  /** The error a run's clock stops it with. */
  outOfTime(usedMs: number): HubosError {
    return exceeded({ budget: 'timeMs', limit: this.#budget.timeMs!, used: usedMs });
  }
}

const UNITS: Record<BudgetName, (n: number) => string> = {
  steps: (n) => `${n} model ${n === 1 ? 'call' : 'calls'}`,
  tokens: (n) => `${n} tokens`,
  costUsd: (n) => `$${n}`,
  timeMs: (n) => `${n} ms`,
};

/** BUDGET_EXCEEDED, naming the budget, its limit and what was used. */
export function exceeded(over: BudgetExceeded): HubosError {
  const { budget, limit, used } = over;
  return new HubosError(
    'BUDGET_EXCEEDED',
    `the run's ${budget} budget is spent: ${UNITS[budget](used)} used, the limit is ${UNITS[budget](limit)} (budget.${budget})`,
    { details: { ...over } },
  );
}

/** A budget given in code (not through a schema) is checked as the config's is. */
function checkBudget(budget: RunBudget, who: string): void {
  if (typeof budget !== 'object' || budget === null || Array.isArray(budget))
    throw new HubosError(
      'BUDGET_INVALID',
      `${who}: a budget is an object such as { steps: 10, tokens: 50000 }`,
    );
  for (const [name, limit] of Object.entries(budget)) {
    if (!NAMES.includes(name as BudgetName))
      throw new HubosError('BUDGET_INVALID', `${who}: unknown budget "${name}" (known: ${NAMES.join(', ')})`);
    if (limit !== undefined && !(typeof limit === 'number' && limit > 0 && Number.isFinite(limit)))
      throw new HubosError(
        'BUDGET_INVALID',
        `${who}: budget.${name} must be a positive number, got ${JSON.stringify(limit)}`,
      );
    if (name === 'timeMs' && (limit as number) > MAX_TIME_BUDGET_MS)
      throw new HubosError(
        'BUDGET_INVALID',
        `${who}: budget.timeMs is at most ${MAX_TIME_BUDGET_MS} (about 24.8 days), got ${limit}: leave it out for no time limit`,
      );
  }
}
