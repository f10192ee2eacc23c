import { HubosError, type HubosErrorCode } from '../../core/index.ts';

/** Workflow failures a caller can branch on (in `error.details.workflow`); HubOS maps each to a status. */
export type WorkflowErrorCode =
  | 'WORKFLOW_INPUT_INVALID'
  | 'WORKFLOW_NOT_FOUND'
  | 'WORKFLOW_RUN_NOT_FOUND'
  | 'WORKFLOW_RUN_ACTIVE'
  | 'WORKFLOW_RUN_FINISHED';

export function workflowError(
  code: HubosErrorCode,
  workflow: WorkflowErrorCode,
  message: string,
): HubosError {
  return new HubosError(code, message, { details: { workflow } });
}
