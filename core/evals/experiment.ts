import type { Message } from '../agent/messages.ts';
import type { JSONSchema } from '../json-schema.ts';

/** What a case expects: each scorer reads the part it judges (a case without it is not scored by it). */
export interface CaseExpectations {
  /** The answer, exactly (`exact`; trimmed). */
  output?: string;
  /** Text the answer must contain (`contains`; all of them when a list). */
  contains?: string | string[];
  /** A regular expression the answer must match (`regex`), as a string: `/^\d+$/i` or `^\d+$`. */
  pattern?: string;
  /** A JSON Schema the answer, parsed as JSON, must fit (`json-schema`). */
  schema?: JSONSchema;
  /** The tool calls expected, in order (`trajectory`). */
  tools?: TrajectoryExpectation;
  /** What a judge model checks the answer against (`judge`), beside the scorer's rubric. */
  criteria?: string;
  /** Budgets (`latency`, `steps`, `tokens`, `cost`). */
  maxLatencyMs?: number;
  maxSteps?: number;
  maxTokens?: number;
  /** In US dollars, as the config's pricing prices the run. */
  maxCost?: number;
}

/** Which tools a run should call: names, or names with (part of) their arguments. */
export interface TrajectoryExpectation {
  calls: ({ name: string; input?: Record<string, unknown> } | string)[];
  /**
   * `exact`: these calls and no others, in this order; `ordered` (default): these in this order,
   * others between them allowed; `unordered`: these in any order, others allowed.
   */
  match?: 'exact' | 'ordered' | 'unordered';
}

/** One case of a dataset. */
export interface EvalCase {
  /** Names the case in reports and baselines (default: its place in the dataset, from 1, as text). */
  id?: string;
  /** The user's message; or a conversation whose last message is the user's (the ones before it are the session's history). */
  input: string | Message[];
  /** Runs in this session (made fresh per case from `input`'s history otherwise). */
  sessionId?: string;
  expected?: CaseExpectations;
  tags?: string[];
  metadata?: Record<string, unknown>;
}

/** A dataset as loaded: its cases, its version (a hash of their content) and what it sets. */
export interface Dataset {
  /** The file's name without its extension, or `inline`. */
  name: string;
  /** `sha256:` and the first 16 hex digits of the hash of the cases' canonical JSON. */
  version: string;
  cases: EvalCase[];
  /** Minimum mean score per scorer (`{ contains: 0.9 }`); the command line's win. */
  thresholds?: Record<string, number>;
  /** The scorers it asks for by default (names or `{ use, ...options }`). */
  scorers?: ScorerSpec[];
  /** Where it was read from (absent for an inline one). */
  file?: string;
}

/** A scorer's verdict on one case. */
export interface Score {
  /** In [0, 1]. */
  score: number;
  reason: string;
}

/** What a scorer is given for one case. */
export interface ScorerInput {
  case: EvalCase;
  /** The answer's text ('' when the run failed). */
  output: string;
  /** The run: its record's id, status, steps, tokens, tool calls and error. */
  run: {
    id: string;
    status: 'completed' | 'failed' | 'cancelled' | 'interrupted';
    steps: number;
    usage: { inputTokens: number; outputTokens: number; totalTokens: number; cachedInputTokens?: number };
    toolCalls: { name: string; input: unknown }[];
    /** In US dollars, when the config prices its model. */
    cost?: number;
    latencyMs: number;
    error?: { code: string; message: string };
  };
  signal: AbortSignal;
}

/** Judges one case: a built-in, or your own (a function, or a plugin registering one by name). */
export interface Scorer {
  readonly name: string;
  /** undefined: the case gives nothing this scorer judges (it is left out of the mean). */
  score(input: ScorerInput): Score | undefined | Promise<Score | undefined>;
}

/** A scorer by registered name (`'contains'`), by name with options (`{ use: 'judge', rubric }`), or a scorer object. */
export type ScorerSpec = string | ({ use: string } & Record<string, unknown>) | Scorer;

/** One case's outcome in an experiment. */
export interface CaseResult {
  /** The case's id (its place from 1 when it has none). */
  id: string;
  input: string | Message[];
  output: string;
  /** The run that answered it (its trace in the studio). */
  runId: string;
  status: ScorerInput['run']['status'];
  scores: Record<string, Score>;
  latencyMs: number;
  usage: ScorerInput['run']['usage'];
  cost?: number;
  error?: { code: string; message: string };
  tags?: string[];
  /** Against the baseline: the scorers it scored lower on, with the earlier score. */
  worse?: Record<string, { before: number; now: number }>;
}

/** Per scorer over the cases it scored. */
export interface ScorerSummary {
  mean: number;
  /** How many cases it scored. */
  cases: number;
  threshold?: number;
  /** false when `mean` is below `threshold`. */
  passed?: boolean;
  /** The baseline's mean, when compared with one. */
  baseline?: number;
}

export interface ExperimentSummary {
  cases: number;
  /** Cases whose run failed, was cancelled or interrupted. */
  failed: number;
  scorers: Record<string, ScorerSummary>;
  /** Every threshold met (true when none is set). */
  passed: boolean;
  /** Cases that got worse than in the baseline. */
  worse?: number;
  durationMs: number;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  cost?: number;
}

/** An experiment as stored: one run of a dataset through an agent (the cases are stored beside it). */
export interface Experiment {
  /** A UUIDv7: newest first by id. */
  id: string;
  /** Given by the caller (`--name`), else `<dataset> <date>`. */
  name: string;
  agent: string;
  /** The model the agent ran on. */
  model: string;
  dataset: { name: string; version: string; cases: number; file?: string };
  /** The principal that ran it: its owner (LOCAL from the CLI). */
  owner: string;
  /** The experiment it was compared with. */
  baseline?: string;
  status: 'running' | 'completed' | 'failed';
  createdAt: string;
  finishedAt?: string;
  summary?: ExperimentSummary;
}

/** What `evaluate()` resolves to. */
export interface EvaluateResult {
  experiment: Experiment;
  cases: CaseResult[];
  summary: ExperimentSummary;
}
