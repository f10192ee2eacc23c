import type { GuardrailEvent } from '../agent/events.ts';
import type { GuardrailStage, GuardrailVerdictRecord } from './guardrail.ts';

/**
 * The `guardrail` event of a trip: the only one a run emits for its guardrails (the verdicts that
 * let a value through ride on its `step-finish` and `tool-result`).
 */
export function tripEvent(
  runId: string,
  step: number,
  stage: GuardrailStage,
  verdicts: GuardrailVerdictRecord[],
  callId?: string,
): GuardrailEvent {
  return { type: 'guardrail', runId, step, stage, ...(callId !== undefined ? { callId } : {}), verdicts };
}
