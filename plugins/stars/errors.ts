import { defineErrorCodes } from '../../core/index.ts';

/** Stars's own error codes and their HTTP statuses. */
export const STARS_ERROR_CODES = defineErrorCodes('stars', {
  STARS_NOT_FOUND: 404,
  STARS_NOT_MEMBER: 404,
  STARS_AGENT_NOT_FOUND: 404,
  STARS_MEMBER_EXISTS: 409,
  STARS_LEADER_EXISTS: 409,
  STARS_NO_LEADER: 409,
  STARS_INVALID: 400,
  /** Over HTTP, a key without `admin` managed a team or used its message board (admin keys only). */
  STARS_ADMIN_ONLY: 403,
});

export type StarsErrorCode = keyof typeof STARS_ERROR_CODES.codes;
