import { defineErrorCodes } from '../../core/index.ts';

/** The workflows plugin's own error codes and their HTTP statuses. */
export const WORKFLOW_ERROR_CODES = defineErrorCodes('workflows', {
  WORKFLOW_INPUT_INVALID: 400,
  WORKFLOW_NOT_FOUND: 404,
  WORKFLOW_RUN_NOT_FOUND: 404,
  WORKFLOW_RUN_ACTIVE: 409,
  WORKFLOW_RUN_FINISHED: 409,
  WORKFLOW_RUN_NOT_RUNNING: 409,
});

/** Workflow failures a caller can branch on, as `error.code`. */
export type WorkflowErrorCode = keyof typeof WORKFLOW_ERROR_CODES.codes;
