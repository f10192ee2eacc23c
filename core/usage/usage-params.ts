import { HubosError } from '../errors.ts';
import { RUN_SURFACES, type RunSurface } from '../runs/run-record.ts';
import type { UsageGroupBy } from '../runs/run-usage-query.ts';

export const USAGE_BUCKETS = { hour: 3_600_000, day: 86_400_000 } as const;
export type UsageBucket = keyof typeof USAGE_BUCKETS;
/** `by`: the runs' usage by model, agent or owner, or not split. */
export type UsageBy = 'model' | UsageGroupBy;
export const USAGE_BY: readonly UsageBy[] = ['model', 'agent', 'owner', 'none'];
/** Default range: the 30 days before `to`. */
export const DEFAULT_USAGE_DAYS = 30;
/** Buckets of one answer at most (31 days of hours, or about 2.7 years of days). */
export const MAX_USAGE_BUCKETS = 1000;
const NAME = /^[A-Za-z0-9._:~@-]{1,200}$/;

/** The query of a usage report as a URL gives it. */
export type UsageParams = Partial<
  Record<'agent' | 'via' | 'owner' | 'from' | 'to' | 'bucket' | 'by', string>
>;

/** A usage report's query, read and checked. */
export interface UsageRequest {
  from: number;
  to: number;
  bucket: UsageBucket;
  by: UsageBy;
  agent?: string;
  via?: RunSurface;
  owner?: string;
}

/**
 * Reads a usage report's query (times ISO 8601 or ms); anything that makes no sense is a
 * USAGE_QUERY_INVALID that says which parameter, what it was and what it may be.
 */
export function parseUsageQuery(params: UsageParams, now = Date.now()): UsageRequest {
  const bucket = (params.bucket ?? 'day') as UsageBucket;
  if (!Object.hasOwn(USAGE_BUCKETS, bucket))
    throw invalid(`bucket "${clip(params.bucket)}" is not one of ${Object.keys(USAGE_BUCKETS).join(', ')}`);
  const by = (params.by ?? 'model') as UsageBy;
  if (!USAGE_BY.includes(by)) throw invalid(`by "${clip(params.by)}" is not one of ${USAGE_BY.join(', ')}`);
  const to = params.to === undefined ? now : time('to', params.to);
  const from =
    params.from === undefined ? to - DEFAULT_USAGE_DAYS * USAGE_BUCKETS.day : time('from', params.from);
  if (from >= to)
    throw invalid(`from (${new Date(from).toISOString()}) must be before to (${new Date(to).toISOString()})`);
  const buckets = Math.ceil(to / USAGE_BUCKETS[bucket]) - Math.floor(from / USAGE_BUCKETS[bucket]);
  if (buckets > MAX_USAGE_BUCKETS)
    throw invalid(
      `from–to spans ${buckets} ${bucket} buckets, more than ${MAX_USAGE_BUCKETS}: narrow the range${bucket === 'hour' ? ' or use bucket=day' : ''}`,
    );
  const request: UsageRequest = { from, to, bucket, by };
  if (params.via !== undefined) {
    if (!RUN_SURFACES.includes(params.via as RunSurface))
      throw invalid(`via "${clip(params.via)}" is not one of ${RUN_SURFACES.join(', ')}`);
    request.via = params.via as RunSurface;
  }
  for (const name of ['agent', 'owner'] as const) {
    const value = params[name];
    if (value === undefined) continue;
    if (!NAME.test(value))
      throw invalid(`${name} "${clip(value)}" is not a name (letters, digits, . _ : ~ @ -)`);
    request[name] = value;
  }
  return request;
}

function time(name: string, value: string): number {
  const ms = /^\d{1,15}$/.test(value) ? Number(value) : Date.parse(value);
  if (Number.isNaN(ms) || ms < 0 || ms > 281_474_976_710_655)
    throw invalid(
      `${name} "${clip(value)}" is not a time: give an ISO 8601 date (2026-11-28T10:00:00Z) or milliseconds since 1970`,
    );
  return ms;
}

const clip = (value: string | undefined): string => (value ?? '').slice(0, 80);

/** A USAGE_QUERY_INVALID saying what was wrong. */
export function invalid(message: string): HubosError {
  return new HubosError('USAGE_QUERY_INVALID', `cannot sum usage: ${message}`);
}
