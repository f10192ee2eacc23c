import type { Agent } from '../../agent/agent.ts';
import { HubosError } from '../../errors.ts';
import type { Kernel } from '../../kernel.ts';
import type { EvalCase, Scorer, ScorerSpec } from '../experiment.ts';
import { DEFAULT_SCORER_OF } from './index.ts';
import type { ScorerContext } from './scorer-context.ts';

/** The judge's rubric when it scores a case's `expected.criteria` by default. */
export const DEFAULT_RUBRIC = 'The answer meets the criteria given with the question, and is correct.';

/**
 * The scorers an evaluation runs: `specs` resolved through `kernel.scorers`, or by default the
 * built-ins whose expectation some case has (the judge for `criteria`). Names must be unique.
 */
export function resolveScorers(
  kernel: Kernel,
  agent: Agent,
  specs: readonly ScorerSpec[] | undefined,
  cases: readonly EvalCase[],
): Scorer[] {
  const context: ScorerContext = {
    resolveModel: (ref) => kernel.models.resolve(ref),
    judge: kernel.config.evals?.judge,
    agentModel: agent.model,
  };
  const chosen = specs ?? defaultSpecs(cases);
  const scorers = chosen.map((spec, i) => kernel.scorers.resolve(spec, context, `scorers[${i}]`));
  const seen = new Set<string>();
  for (const scorer of scorers) {
    if (seen.has(scorer.name))
      throw new HubosError(
        'SCORER_INVALID',
        `two scorers are named "${scorer.name}": give one another name (a judge takes { name: "tone" })`,
      );
    seen.add(scorer.name);
  }
  if (scorers.length === 0)
    throw new HubosError(
      'SCORER_INVALID',
      'nothing to score: no case has an expectation (expected.output, contains, pattern, schema, tools, criteria or a budget), and no scorer was named',
    );
  return scorers;
}

function defaultSpecs(cases: readonly EvalCase[]): ScorerSpec[] {
  const has = (key: string) => cases.some((item) => item.expected && key in item.expected);
  const specs: ScorerSpec[] = DEFAULT_SCORER_OF.filter(([, key]) => has(key)).map(([name]) => name);
  if (has('criteria')) specs.push({ use: 'judge', rubric: DEFAULT_RUBRIC });
  return specs;
}
