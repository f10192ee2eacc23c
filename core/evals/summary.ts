import { roundUsd } from '../usage/cost-of.ts';
import type { CaseResult, ExperimentSummary, ScorerSummary } from './experiment.ts';

/** The scorers a case scored lower on than in the baseline, with both scores. */
export function worseThan(now: CaseResult, before: CaseResult | undefined): CaseResult['worse'] {
  if (!before) return undefined;
  const worse: NonNullable<CaseResult['worse']> = {};
  for (const [name, score] of Object.entries(now.scores)) {
    const earlier = before.scores[name];
    if (earlier && score.score < earlier.score) worse[name] = { before: earlier.score, now: score.score };
  }
  return Object.keys(worse).length > 0 ? worse : undefined;
}

/**
 * The experiment's summary: per scorer the mean over the cases it scored, against its threshold
 * (a threshold on a scorer that scored no case is not met: nothing showed it) and the baseline's mean.
 */
export function summarize(
  cases: readonly CaseResult[],
  options: {
    scorers: readonly string[];
    thresholds: Readonly<Record<string, number>>;
    durationMs: number;
    baseline?: readonly CaseResult[] | undefined;
  },
): ExperimentSummary {
  const scorers: Record<string, ScorerSummary> = {};
  for (const name of options.scorers) {
    const scored = cases.flatMap((result) => (result.scores[name] ? [result.scores[name].score] : []));
    const summary: ScorerSummary = { mean: mean(scored), cases: scored.length };
    const threshold = options.thresholds[name];
    if (threshold !== undefined) {
      summary.threshold = threshold;
      summary.passed = scored.length > 0 && summary.mean >= threshold;
    }
    if (options.baseline) {
      const before = options.baseline.flatMap((result) =>
        result.scores[name] ? [result.scores[name].score] : [],
      );
      if (before.length > 0) summary.baseline = mean(before);
    }
    scorers[name] = summary;
  }
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let cost: number | undefined;
  for (const result of cases) {
    usage.inputTokens += result.usage.inputTokens;
    usage.outputTokens += result.usage.outputTokens;
    usage.totalTokens += result.usage.totalTokens;
    if (result.cost !== undefined) cost = roundUsd((cost ?? 0) + result.cost);
  }
  const worse = cases.filter((result) => result.worse).length;
  return {
    cases: cases.length,
    failed: cases.filter((result) => result.status !== 'completed').length,
    scorers,
    passed: Object.values(scorers).every((summary) => summary.passed !== false),
    ...(options.baseline ? { worse } : {}),
    durationMs: Math.round(options.durationMs),
    usage,
    ...(cost !== undefined ? { cost } : {}),
  };
}

/** Rounded to 4 decimals: a mean of 0.1 + 0.2 should not show as 0.30000000000000004. */
function mean(values: readonly number[]): number {
  if (values.length === 0) return 0;
  return Math.round((values.reduce((sum, value) => sum + value, 0) / values.length) * 10_000) / 10_000;
}
