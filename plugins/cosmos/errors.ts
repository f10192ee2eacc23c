import { defineErrorCodes } from '../../core/index.ts';

/** Seconds a client told `COSMOS_FULL` should wait before trying again. */
export const RETRY_AFTER_SECONDS = 5;

/** Cosmos's own error codes and their HTTP statuses. */
export const COSMOS_ERROR_CODES = defineErrorCodes('cosmos', {
  COSMOS_FULL: { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } },
  TEMPLATE_NOT_FOUND: 404,
  /** Over HTTP, a key without `admin` asked for more than the template gives (tools, model, metadata). */
  COSMOS_OVERRIDE_DENIED: 403,
  /** Over HTTP, a key without `admin` asked for what only admin keys may do (stats, deleting a shared agent). */
  COSMOS_ADMIN_ONLY: 403,
});
