import { containsScorer } from './contains.ts';
import { costScorer } from './cost.ts';
import { exactScorer } from './exact.ts';
import { jsonSchemaScorer } from './json-schema.ts';
import { judgeScorer } from './judge.ts';
import { latencyScorer } from './latency.ts';
import { regexScorer } from './regex.ts';
import type { ScorerFactory } from './scorer-context.ts';
import { stepsScorer } from './steps.ts';
import { tokensScorer } from './tokens.ts';
import { trajectoryScorer } from './trajectory.ts';

/** The built-in scorers by name. */
export const BUILTIN_SCORERS: ReadonlyMap<string, ScorerFactory> = new Map<string, ScorerFactory>([
  ['exact', exactScorer],
  ['contains', containsScorer],
  ['regex', regexScorer],
  ['json-schema', jsonSchemaScorer],
  ['trajectory', trajectoryScorer],
  ['judge', judgeScorer],
  ['latency', latencyScorer],
  ['steps', stepsScorer],
  ['tokens', tokensScorer],
  ['cost', costScorer],
]);

/** Which expectation each built-in judges: a case that has it is scored by it by default. */
export const DEFAULT_SCORER_OF: readonly [string, keyof import('../experiment.ts').CaseExpectations][] = [
  ['exact', 'output'],
  ['contains', 'contains'],
  ['regex', 'pattern'],
  ['json-schema', 'schema'],
  ['trajectory', 'tools'],
  ['latency', 'maxLatencyMs'],
  ['steps', 'maxSteps'],
  ['tokens', 'maxTokens'],
  ['cost', 'maxCost'],
];
