import type { ApprovalRecord } from '../agent/approvals.ts';

/** Where a page of approvals starts: after this one, in request order. */
export interface ApprovalCursor {
  /** When that one was requested (ms since the epoch). */
  requestedAt: number;
  /** Its run. */
  runId: string;
  /** Its call. */
  callId: string;
}

/** Which approvals to list: oldest request first, a page at a time. */
export interface ApprovalQuery {
  /** Only this principal's (undefined: everyone's, for an admin). */
  owner?: string | undefined;
  /** Decided ones too (default: pending only). */
  all?: boolean | undefined;
  /** At most this many. */
  limit: number;
  /** After this one (the last of the previous page). */
  after?: ApprovalCursor | undefined;
}

/**
 * The approvals, in a table of their own beside the runs (SQLite or PostgreSQL). A decision is a
 * compare-and-set on the row's record, so of two instances deciding at once exactly one writes.
 */
export interface ApprovalTable {
  /** Writes the record, over whatever the row held. */
  put(record: ApprovalRecord): Promise<void>;
  /** Writes the records whose rows do not exist, in one commit; how many it wrote (the import of old records). */
  insertMany(records: readonly ApprovalRecord[]): Promise<number>;
  /** One approval as stored, pending or decided. */
  get(runId: string, callId: string): Promise<ApprovalRecord | undefined>;
  /** Writes `next` only if the row still holds `expected` exactly (as `get` returned it); true when it wrote. */
  compareAndSet(expected: ApprovalRecord, next: ApprovalRecord): Promise<boolean>;
  /** A run's approvals, oldest first: pending ones only unless `all`. */
  ofRun(runId: string, all: boolean): Promise<ApprovalRecord[]>;
  /** A page of approvals, oldest request first. */
  list(query: ApprovalQuery): Promise<ApprovalRecord[]>;
  /** Deletes at most `limit` decided approvals decided before `time` (ms); how many went. */
  deleteDecidedBefore(time: number, limit: number): Promise<number>;
  /** Deletes at most `limit` approvals of `owner`, pending or decided; how many went. */
  deleteOwned(owner: string, limit: number): Promise<number>;
}

/** An approval row as both dialects hold it. */
export interface ApprovalRow {
  record: string;
}

export const APPROVAL_COLUMNS = 'run_id, call_id, owner, status, requested_at, decided_at, record';

/** Who an approval is for, as the table keys it: '' when nobody (only admins see it). */
export const ownerOf = (record: ApprovalRecord): string => record.principal ?? '';

/** The row's values in column order. */
export function approvalToRow(record: ApprovalRecord): unknown[] {
  return [
    record.runId,
    record.callId,
    ownerOf(record),
    record.status,
    Date.parse(record.requestedAt),
    record.decidedAt === undefined ? null : Date.parse(record.decidedAt),
    JSON.stringify(record),
  ];
}

export const approvalFromRow = (row: ApprovalRow): ApprovalRecord => JSON.parse(row.record) as ApprovalRecord;

/**
 * The WHERE clause of a list, with `?` placeholders, and its values: the pending index (of one
 * owner, or of all) when only pending ones are asked, so decided approvals are never read.
 */
export function approvalListFilter(query: ApprovalQuery): { where: string; values: unknown[] } {
  const parts: string[] = [];
  const values: unknown[] = [];
  if (query.owner !== undefined) {
    parts.push('owner = ?');
    values.push(query.owner);
  }
  if (!query.all) parts.push("status = 'pending'");
  const after = query.after;
  if (after) {
    // A row value: both databases seek the index to it rather than read the pages before.
    parts.push('(requested_at, run_id, call_id) > (?, ?, ?)');
    values.push(after.requestedAt, after.runId, after.callId);
  }
  return { where: parts.length ? `WHERE ${parts.join(' AND ')}` : '', values };
}
