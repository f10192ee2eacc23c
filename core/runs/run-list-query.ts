import { HubosError } from '../errors.ts';
import { RUN_STATES, RUN_SURFACES, type RunState, type RunSurface } from './run-record.ts';
import type { RunQuery } from './run-table.ts';

export const DEFAULT_RUN_PAGE = 50;
export const MAX_RUN_PAGE = 200;
/** The longest text search of a list, in characters. */
export const MAX_RUN_SEARCH = 200;
const ID = /^[A-Za-z0-9._:-]{1,128}$/;
const NAME = /^[A-Za-z0-9._:~-]{1,200}$/;

/** The filters of a list of runs as a URL's query gives them (`agent`, `status`, `limit`, `cursor`...). */
export type RunListParams = Partial<
  Record<'agent' | 'status' | 'via' | 'sessionId' | 'since' | 'until' | 'limit' | 'cursor' | 'q', string>
>;

/**
 * Reads a list's filters; anything that makes no sense is a RUN_QUERY_INVALID that says which
 * parameter, what it was and what it may be.
 */
export function parseRunQuery(params: RunListParams): Omit<RunQuery, 'owner'> {
  const query: Omit<RunQuery, 'owner'> = { limit: DEFAULT_RUN_PAGE };
  if (params.limit !== undefined) {
    const limit = /^\d{1,4}$/.test(params.limit) ? Number(params.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_RUN_PAGE))
      throw invalid(`limit "${params.limit}" is not a whole number from 1 to ${MAX_RUN_PAGE}`);
    query.limit = limit;
  }
  if (params.status !== undefined) {
    if (!RUN_STATES.includes(params.status as RunState))
      throw invalid(`status "${params.status}" is not one of ${RUN_STATES.join(', ')}`);
    query.status = params.status as RunState;
  }
  if (params.via !== undefined) {
    if (!RUN_SURFACES.includes(params.via as RunSurface))
      throw invalid(`via "${params.via}" is not one of ${RUN_SURFACES.join(', ')}`);
    query.via = params.via as RunSurface;
  }
  for (const name of ['agent', 'sessionId'] as const) {
    const value = params[name];
    if (value === undefined) continue;
    if (!NAME.test(value))
      throw invalid(`${name} "${value.slice(0, 80)}" is not a name (letters, digits, . _ : ~ -)`);
    query[name] = value;
  }
  for (const name of ['since', 'until'] as const) {
    const value = params[name];
    if (value === undefined) continue;
    const time = /^\d{1,15}$/.test(value) ? Number(value) : Date.parse(value);
    if (Number.isNaN(time))
      throw invalid(
        `${name} "${value.slice(0, 80)}" is not a time: give an ISO 8601 date (2026-11-28T10:00:00Z) or milliseconds since 1970`,
      );
    query[name] = time;
  }
  if (params.cursor !== undefined) query.before = decodeCursor(params.cursor);
  if (params.q !== undefined) query.q = searchText(params.q);
  return query;
}

/** A text search as given: searched for literally (`%`, `_`, a backslash and quotes are plain characters). */
function searchText(q: string): string {
  const length = [...q].length;
  if (length < 1 || length > MAX_RUN_SEARCH)
    throw invalid(
      `q is ${length} characters long: search for 1 to ${MAX_RUN_SEARCH} characters of the runs' input`,
    );
  // A NUL is in no stored input (PostgreSQL's text cannot hold one): a search for it is a mistake.
  if (q.includes('\u0000')) throw invalid('q holds a NUL character: search for printable text');
  return q;
}

/** The cursor of the page after one that ended with run `lastId`. */
export function encodeCursor(lastId: string): string {
  return Buffer.from(`r1:${lastId}`).toString('base64url');
}

function decodeCursor(cursor: string): string {
  const text = /^[A-Za-z0-9_-]{1,300}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const id = text.startsWith('r1:') ? text.slice(3) : '';
  if (!ID.test(id))
    throw invalid(
      `cursor "${cursor.slice(0, 80)}" is not one this server gave: pass the nextCursor of the previous page as it came`,
    );
  return id;
}

function invalid(message: string): HubosError {
  return new HubosError('RUN_QUERY_INVALID', `cannot list runs: ${message}`);
}
