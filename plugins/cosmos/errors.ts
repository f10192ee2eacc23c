import { defineErrorCodes } from '../../core/index.ts';

/** Seconds a client told `COSMOS_FULL` should wait before trying again. */
export const RETRY_AFTER_SECONDS = 5;

/** Cosmos's own error codes and their HTTP statuses. */
export const COSMOS_ERROR_CODES = defineErrorCodes('cosmos', {
  COSMOS_FULL: { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } },
  TEMPLATE_NOT_FOUND: 404,
});
