import { defineErrorCodes } from '../../core/index.ts';

/** The HubOS server's own error codes and their statuses (the kernel's and other plugins' are declared with them). */
export const HUBOS_ERROR_CODES = defineErrorCodes('hubos', {
  UNAUTHORIZED: { status: 401, headers: { 'www-authenticate': 'Bearer' } },
  HOST_NOT_ALLOWED: 403,
  // A route only an admin key may use.
  FORBIDDEN: 403,
  ORIGIN_NOT_ALLOWED: 403,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_JSON: 400,
  JSON_TOO_COMPLEX: 400,
  INVALID_BODY: 400,
  NO_INPUT: 400,
  TOOL_CONFLICT: 400,
  NOT_FOUND: 404,
  // A run started again on a model no served agent runs on (POST /runs/:id/again).
  MODEL_NOT_ALLOWED: 400,
  // A run that cannot be started again: not an agent's (a Stars team's, a workflow's), or no input.
  RUN_NOT_REPEATABLE: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  SHUTTING_DOWN: { status: 503, headers: { 'retry-after': '5' } },
  INTERNAL: 500,
  LISTEN_FAILED: 500,
});
