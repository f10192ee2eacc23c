import type { CallSurface } from '../call-surface.ts';
import { HubosError } from '../errors.ts';
import type { LanguageModel } from '../model/model.ts';

/**
 * Where a guardrail checks: the user's message before the model sees it (`input`), an answer before
 * it reaches the caller (`output`), a tool call's arguments before it runs (`tool-input`) and its
 * result before the model sees it (`tool-output`).
 */
export type GuardrailStage = 'input' | 'output' | 'tool-input' | 'tool-output';

export const GUARDRAIL_STAGES: readonly GuardrailStage[] = Object.freeze([
  'input',
  'output',
  'tool-input',
  'tool-output',
]);

/** What one check is given beside the value. */
export interface GuardrailContext {
  stage: GuardrailStage;
  /** The agent whose run it is (a workflow's or an MCP call's run name one too). */
  agent: string;
  runId: string;
  principal?: string | undefined;
  via?: CallSurface | undefined;
  /** At `tool-input` and `tool-output`: the call. */
  call?: { id: string; name: string };
  /**
   * At `output`: the answer's text released before this piece (a streamed answer is checked a
   * sentence at a time); '' for the first piece or a whole answer.
   */
  before?: string;
  /** At `output`: whether the value is the whole answer (always true for a guardrail whose `streaming` is `whole`). */
  final?: boolean;
  /** Aborts with the run. */
  signal: AbortSignal;
  /** The run's model: what a check that asks a model (the `classifier` built-in) asks unless told another. */
  model?: LanguageModel;
  /** The model a reference names (`'openai:gpt-4.1-mini'`), made by the kernel's model registry. */
  resolveModel?: (ref: string) => LanguageModel;
}

/**
 * A guardrail's answer: `undefined` or `{ action: 'pass' }` lets the value through; `rewrite` lets
 * `value` through in its place (a redaction); `trip` stops the run with GUARDRAIL_TRIPPED.
 */
export type GuardrailVerdict =
  | { action: 'pass'; reason?: string }
  | { action: 'rewrite'; value: unknown; reason: string }
  | { action: 'trip'; reason: string };

/** A check on what goes in and out of a run; see `defineGuardrail`. */
export interface Guardrail {
  /** Names it in verdicts, errors and the trace (`pii`, `my-policy`). */
  readonly name: string;
  /** The stages it checks when listed for one; default: every stage it is listed for. */
  readonly stages?: readonly GuardrailStage[];
  /**
   * At `output`, how a streamed answer is held: `sentence` checks each sentence (or line) before it
   * is released; `whole` holds the answer back until it ended and checks it whole (a JSON Schema, a
   * classifier). Default `whole`: the safe choice for a check that needs context.
   */
  readonly streaming?: 'sentence' | 'whole';
  /**
   * Checks `value`: a string at `input` and `output`; the call's arguments (JSON) at `tool-input`;
   * the tool's output (a string or JSON) at `tool-output`.
   */
  check(
    value: unknown,
    ctx: GuardrailContext,
  ): GuardrailVerdict | undefined | Promise<GuardrailVerdict | undefined>;
}

/**
 * How a config names a guardrail: a built-in's or a plugin's registered name (`'pii'`), the same with
 * options (`{ use: 'max-length', max: 4000 }`), or a guardrail object.
 */
export type GuardrailSpec = string | ({ use: string } & Record<string, unknown>) | Guardrail;

/** `agents.<name>.guardrails` (and the top-level `guardrails`, for every agent and tool call). */
export interface GuardrailsConfig {
  input?: GuardrailSpec[];
  output?: GuardrailSpec[];
  /** Checked before each tool call (its arguments) and after it (its result). */
  tool?: GuardrailSpec[];
}

/** One verdict as the run's trace keeps it (a step's `guardrails`, the `guardrail` event). */
export interface GuardrailVerdictRecord {
  guardrail: string;
  stage: GuardrailStage;
  action: 'pass' | 'rewrite' | 'trip';
  reason?: string;
  /** At `tool-*`: the call's id. */
  callId?: string;
  /** At `output`: how many pieces of a streamed answer it checked. */
  checks?: number;
}

/** A guardrail from its parts, with its name and `check` checked. */
export function defineGuardrail(guardrail: Guardrail): Guardrail {
  const name = (guardrail as Partial<Guardrail> | undefined)?.name;
  if (typeof name !== 'string' || name.trim() === '')
    throw new HubosError(
      'GUARDRAIL_INVALID',
      'defineGuardrail: give the guardrail a non-empty "name" (e.g. "no-refunds")',
    );
  if (typeof guardrail.check !== 'function')
    throw new HubosError(
      'GUARDRAIL_INVALID',
      `guardrail "${name}": "check" must be a function (value, ctx) => verdict`,
    );
  const { stages, streaming } = guardrail;
  if (
    stages !== undefined &&
    (!Array.isArray(stages) ||
      stages.length === 0 ||
      !stages.every((stage) => GUARDRAIL_STAGES.includes(stage)))
  )
    throw new HubosError(
      'GUARDRAIL_INVALID',
      `guardrail "${name}": "stages" must be a non-empty list of ${GUARDRAIL_STAGES.map((s) => `'${s}'`).join(', ')}`,
    );
  if (streaming !== undefined && streaming !== 'sentence' && streaming !== 'whole')
    throw new HubosError(
      'GUARDRAIL_INVALID',
      `guardrail "${name}": "streaming" must be 'sentence' or 'whole'`,
    );
  return guardrail;
}

export const pass = (reason?: string): GuardrailVerdict => ({
  action: 'pass',
  ...(reason ? { reason } : {}),
});
export const rewrite = (value: unknown, reason: string): GuardrailVerdict => ({
  action: 'rewrite',
  value,
  reason,
});
export const trip = (reason: string): GuardrailVerdict => ({ action: 'trip', reason });
