// Experiments as evaluate() stores them, for tests of what reads them (routes, the studio's page).

import type { CaseResult, Experiment, ExperimentSummary, Score } from '../../core/evals/experiment.ts';
import { ExperimentStore, newRunId, type Store } from '../../core/index.ts';

/** One case's outcome: a completed run that answered `output`, scored as given. */
export function caseResult(
  id: string,
  input: CaseResult['input'],
  output: string,
  scores: Record<string, Score>,
  extra: Partial<CaseResult> = {},
): CaseResult {
  return {
    id,
    input,
    output,
    runId: newRunId(),
    status: 'completed',
    scores,
    latencyMs: 420,
    usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
    ...extra,
  };
}

/** The summary evaluate() computes from cases: each scorer's mean over the cases it scored. */
export function summarize(
  cases: readonly CaseResult[],
  thresholds: Record<string, number> = {},
  baseline?: Record<string, number>,
): ExperimentSummary {
  const scorers: ExperimentSummary['scorers'] = {};
  const names = new Set(cases.flatMap((result) => Object.keys(result.scores)));
  for (const name of names) {
    const scored = cases.flatMap((result) => (result.scores[name] ? [result.scores[name].score] : []));
    const mean = scored.reduce((sum, score) => sum + score, 0) / scored.length;
    const threshold = thresholds[name];
    scorers[name] = {
      mean,
      cases: scored.length,
      ...(threshold !== undefined ? { threshold, passed: mean >= threshold } : {}),
      ...(baseline?.[name] !== undefined ? { baseline: baseline[name] } : {}),
    };
  }
  const worse = cases.filter((result) => result.worse && Object.keys(result.worse).length > 0).length;
  return {
    cases: cases.length,
    failed: cases.filter((result) => result.status !== 'completed').length,
    scorers,
    passed: Object.values(scorers).every((summary) => summary.passed !== false),
    ...(baseline ? { worse } : {}),
    durationMs: 1800,
    usage: {
      inputTokens: 120 * cases.length,
      outputTokens: 30 * cases.length,
      totalTokens: 150 * cases.length,
    },
  };
}

export interface SeedOptions {
  owner: string;
  agent?: string;
  model?: string;
  name?: string;
  dataset?: { name: string; version: string };
  createdAt?: Date;
  thresholds?: Record<string, number>;
  baseline?: { id: string; means: Record<string, number> };
  /** `running`: stored as evaluate() keeps one still going (no summary, no end yet). */
  status?: Experiment['status'];
}

/** Stores an experiment of `cases` as evaluate() does (record, then cases) and answers it. */
export async function seedExperiment(
  store: Store,
  cases: readonly CaseResult[],
  options: SeedOptions,
): Promise<Experiment> {
  const created = options.createdAt ?? new Date();
  const dataset = options.dataset ?? { name: 'support', version: 'sha256:0123456789abcdef' };
  const experiment: Experiment = {
    id: newRunId(),
    name: options.name ?? `${dataset.name} ${created.toISOString().slice(0, 16).replace('T', ' ')}`,
    agent: options.agent ?? 'helper',
    model: options.model ?? 'scripted:test',
    dataset: { ...dataset, cases: cases.length, file: `evals/${dataset.name}.jsonl` },
    owner: options.owner,
    ...(options.baseline ? { baseline: options.baseline.id } : {}),
    status: options.status ?? 'completed',
    createdAt: created.toISOString(),
    ...(options.status === 'running'
      ? {}
      : {
          finishedAt: new Date(created.getTime() + 1800).toISOString(),
          summary: summarize(cases, options.thresholds, options.baseline?.means),
        }),
  };
  const experiments = new ExperimentStore(store);
  await experiments.put(experiment);
  await experiments.putCases(experiment.id, cases);
  return experiment;
}
