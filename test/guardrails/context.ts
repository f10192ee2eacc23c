import type { GuardrailContext, GuardrailStage } from '../../core/index.ts';

/** What the agent loop gives a check, for calling built-ins directly. */
export function context(stage: GuardrailStage, extra: Partial<GuardrailContext> = {}): GuardrailContext {
  return { stage, agent: 'support', runId: 'run-1', signal: new AbortController().signal, ...extra };
}
