import { type ApprovalCursor, HubosError } from '../../../core/index.ts';

export const DEFAULT_APPROVAL_PAGE = 50;
export const MAX_APPROVAL_PAGE = 200;

/** A page of `GET /approvals` as its query gives it: `limit` (1–200) and `cursor`. */
export function parseApprovalPage(params: { limit?: string | undefined; cursor?: string | undefined }): {
  limit: number;
  after?: ApprovalCursor;
} {
  let limit = DEFAULT_APPROVAL_PAGE;
  if (params.limit !== undefined) {
    limit = /^\d{1,4}$/.test(params.limit) ? Number(params.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_APPROVAL_PAGE))
      throw invalid(
        `limit "${params.limit.slice(0, 80)}" is not a whole number from 1 to ${MAX_APPROVAL_PAGE}`,
      );
  }
  if (params.cursor === undefined) return { limit };
  return { limit, after: decodeCursor(params.cursor) };
}

/** The cursor of the page that starts after `next`. */
export function encodeApprovalCursor(next: ApprovalCursor): string {
  return Buffer.from(JSON.stringify(['a1', next.requestedAt, next.runId, next.callId])).toString('base64url');
}

function decodeCursor(cursor: string): ApprovalCursor {
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]{1,1500}$/.test(cursor)
      ? JSON.parse(Buffer.from(cursor, 'base64url').toString())
      : undefined;
  } catch {
    parsed = undefined;
  }
  const [tag, requestedAt, runId, callId] = Array.isArray(parsed) ? parsed : [];
  if (
    tag !== 'a1' ||
    !Number.isSafeInteger(requestedAt) ||
    typeof runId !== 'string' ||
    typeof callId !== 'string' ||
    runId.length > 500 ||
    callId.length > 500
  )
    throw invalid(
      `cursor "${cursor.slice(0, 80)}" is not one this server gave: pass the nextCursor of the previous page as it came`,
    );
  return { requestedAt, runId, callId };
}

function invalid(message: string): HubosError {
  return new HubosError('APPROVAL_QUERY_INVALID', `cannot list approvals: ${message}`);
}
