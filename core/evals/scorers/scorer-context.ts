import type { LanguageModel } from '../../model/model.ts';

/** What a scorer factory may use beside its options: the models a judge may ask. */
export interface ScorerContext {
  /** A model by reference (`openai:gpt-4.1-mini`), as the kernel's model registry makes it. */
  resolveModel(ref: string): LanguageModel;
  /** The config's `evals.judge`: the judge's model when its options name none. */
  judge?: string | undefined;
  /** The evaluated agent's model: the judge's last resort. */
  agentModel: LanguageModel;
  /** The config's prices (USD per million tokens), for the `cost` budget. */
  pricing?: unknown;
}

/** Makes a scorer from its options (what a `{ use: name, ...options }` entry gives). */
export type ScorerFactory = (
  options: Record<string, unknown>,
  context: ScorerContext,
) => import('../experiment.ts').Scorer;
