import type { AgentEvent } from '../agent/events.ts';
import type { GuardrailVerdictRecord } from './guardrail.ts';

/** A `guardrail` event per verdict. */
export function emitVerdicts(
  emit: (event: AgentEvent) => void,
  runId: string,
  step: number,
  verdicts: readonly GuardrailVerdictRecord[],
): void {
  for (const verdict of verdicts) emit({ type: 'guardrail', runId, step, ...verdict });
}
