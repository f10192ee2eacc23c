import { errorMessage, HubosError, type Usage } from '../../core/index.ts';
import { emptyUsage } from '../../core/internal.ts';
import type { WorkflowError } from './types.ts';

/** A step failed (after its retries): unwinds the workflow unless a parent continues on error. */
export class StepFailure extends Error {
  readonly failure: WorkflowError;
  readonly attempts: number;
  /** What the failed attempts spent. */
  readonly usage: Usage;

  constructor(failure: WorkflowError, attempts = 1, usage: Usage = emptyUsage()) {
    super(failure.message);
    this.failure = failure;
    this.attempts = attempts;
    this.usage = usage;
  }
}

/** A step stopped because its run (or a failing sibling in a parallel step) was cancelled. */
export class StepCancelled extends Error {
  readonly attempts: number;
  readonly usage: Usage;

  constructor(attempts = 1, usage: Usage = emptyUsage()) {
    super('cancelled');
    this.attempts = attempts;
    this.usage = usage;
  }
}

export function toWorkflowError(error: unknown, stepId: string): WorkflowError {
  if (error instanceof StepFailure) return error.failure;
  return {
    code: HubosError.is(error) ? error.code : 'STEP_FAILED',
    message: errorMessage(error),
    ...(stepId ? { stepId } : {}),
  };
}
