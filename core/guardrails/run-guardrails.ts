import { HubosError } from '../errors.ts';
import type {
  Guardrail,
  GuardrailContext,
  GuardrailStage,
  GuardrailVerdict,
  GuardrailVerdictRecord,
} from './guardrail.ts';

/** What a stage's guardrails let through, and what each said. */
export interface GuardrailsOutcome {
  value: unknown;
  verdicts: GuardrailVerdictRecord[];
}

/**
 * A guardrail stopped a run: a HubosError GUARDRAIL_TRIPPED (details `{ guardrail, stage, reason }`)
 * that also carries the verdicts of the check that tripped, the trip's last, for the run's trace.
 */
export class GuardrailTripped extends HubosError {
  readonly verdicts: GuardrailVerdictRecord[];

  constructor(guardrail: string, stage: GuardrailStage, reason: string, verdicts: GuardrailVerdictRecord[]) {
    super('GUARDRAIL_TRIPPED', `guardrail "${guardrail}" tripped on the ${stage}: ${reason}`, {
      details: { guardrail, stage, reason },
    });
    this.verdicts = verdicts;
  }
}

/** Whether `guardrail` checks at `stage`: its `stages` say so, or it names none. */
export function checksAt(guardrail: Guardrail, stage: GuardrailStage): boolean {
  return guardrail.stages === undefined || guardrail.stages.includes(stage);
}

/**
 * Runs a stage's guardrails in order, each on the value the one before let through (a rewrite
 * replaces it), skipping those whose `stages` leave the stage out. Resolves with the value let
 * through and a verdict per guardrail that checked; a trip throws GuardrailTripped. A guardrail
 * that throws, or answers something that is not a verdict, trips: a check that cannot say yes
 * says no.
 */
export async function runGuardrails(
  guardrails: readonly Guardrail[],
  value: unknown,
  ctx: GuardrailContext,
): Promise<GuardrailsOutcome> {
  const verdicts: GuardrailVerdictRecord[] = [];
  let current = value;
  for (const guardrail of guardrails) {
    if (!checksAt(guardrail, ctx.stage)) continue;
    let answer: GuardrailVerdict | undefined;
    try {
      // Awaited only when the check answers asynchronously: most answer at once, on the hot path.
      const checked = guardrail.check(current, ctx);
      answer = checked instanceof Promise ? await checked : checked;
    } catch (error) {
      // A cancelled run is cancelled, not tripped.
      ctx.signal.throwIfAborted();
      if (error instanceof GuardrailTripped) throw error;
      answer = {
        action: 'trip',
        reason: `its check failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    const verdict = wellFormed(answer);
    const record: GuardrailVerdictRecord = {
      guardrail: guardrail.name,
      stage: ctx.stage,
      action: verdict.action,
      ...(verdict.reason ? { reason: verdict.reason } : {}),
      ...(ctx.call ? { callId: ctx.call.id } : {}),
    };
    verdicts.push(record);
    if (verdict.action === 'trip')
      throw new GuardrailTripped(guardrail.name, ctx.stage, verdict.reason, verdicts);
    if (verdict.action === 'rewrite') current = verdict.value;
  }
  return { value: current, verdicts };
}

/** A check's answer as a verdict: nothing passes; anything that is not a verdict trips. */
function wellFormed(answer: GuardrailVerdict | undefined): GuardrailVerdict {
  if (answer === undefined || answer === null) return { action: 'pass' };
  if (typeof answer !== 'object')
    return { action: 'trip', reason: 'its check answered something that is not a verdict' };
  if (answer.action === 'pass' || answer.action === 'rewrite' || answer.action === 'trip') {
    if (answer.action !== 'pass' && typeof answer.reason !== 'string')
      return { action: 'trip', reason: `its ${answer.action} verdict has no reason` };
    return answer;
  }
  return { action: 'trip', reason: 'its check answered something that is not a verdict' };
}

/** Whether an error is a guardrail's trip (from this copy of the package or another). */
export function isGuardrailTrip(error: unknown): error is HubosError {
  return HubosError.is(error, 'GUARDRAIL_TRIPPED');
}
