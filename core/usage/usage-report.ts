import type { Principal } from '../principal.ts';
import type { RunTable } from '../runs/run-table.ts';
import { costOf } from './cost-of.ts';
import type { PriceTable } from './model-prices.ts';
import { invalid, USAGE_BUCKETS, type UsageBucket, type UsageBy, type UsageRequest } from './usage-params.ts';
import { UsageSum, type UsageTotals } from './usage-totals.ts';

/** One bucket of a usage report: its start, its sums, and (unless `by=none`) its sums per group. */
export interface UsageBucketTotals extends UsageTotals {
  start: string;
  /** Per model, agent or owner (as `by` says), those with calls only. */
  groups?: Array<UsageTotals & { group: string }>;
}

/** What `GET /api/usage` answers. */
export interface UsageReport {
  from: string;
  to: string;
  bucket: UsageBucket;
  by: UsageBy;
  totals: UsageTotals;
  /** Every bucket from the one holding `from` to the one holding `to`, empty ones included. */
  buckets: UsageBucketTotals[];
  /** Models called in the range that have no price: their tokens are counted, their cost is not. */
  unpricedModels: string[];
}

/**
 * The model usage of the runs `principal` may see (an admin: everyone's, or `owner`'s) created in
 * the request's range, in buckets, priced with `prices`.
 */
export async function usageReport(
  table: RunTable,
  principal: Principal,
  request: UsageRequest,
  prices: PriceTable,
): Promise<UsageReport> {
  if (!principal.admin && request.owner !== undefined && request.owner !== principal.id)
    throw invalid(
      `owner "${request.owner}" is for admin keys: this key sees its own usage only (leave owner out)`,
    );
  const size = USAGE_BUCKETS[request.bucket];
  const rows = await table.usage({
    owner: principal.admin ? request.owner : principal.id,
    agent: request.agent,
    via: request.via,
    from: request.from,
    to: request.to,
    bucketMs: size,
    groupBy: request.by === 'model' ? 'none' : request.by,
  });
  const total = new UsageSum();
  const buckets = new Map<number, { sum: UsageSum; groups: Map<string, UsageSum> }>();
  for (let start = Math.floor(request.from / size) * size; start < request.to; start += size)
    buckets.set(start, { sum: new UsageSum(), groups: new Map() });
  const unpriced = new Set<string>();
  for (const row of rows) {
    const cost = costOf(row.model, row, prices);
    if (cost === null) unpriced.add(row.model);
    const part = {
      runs: row.firstRuns,
      modelCalls: row.modelCalls,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      cachedInputTokens: row.cachedInputTokens,
      cost,
    };
    total.add(part);
    const bucket = buckets.get(row.bucket);
    if (!bucket) continue; // (a run created exactly at `to` cannot be here: the range excludes it)
    bucket.sum.add(part);
    if (request.by === 'none') continue;
    const key = request.by === 'model' ? row.model : row.group;
    let group = bucket.groups.get(key);
    if (!group) {
      group = new UsageSum();
      bucket.groups.set(key, group);
    }
    // By model, a run is counted under each model it called; by agent or owner, once.
    group.add(request.by === 'model' ? { ...part, runs: row.runs } : part);
  }
  return {
    from: new Date(request.from).toISOString(),
    to: new Date(request.to).toISOString(),
    bucket: request.bucket,
    by: request.by,
    totals: total.totals(),
    buckets: [...buckets].map(([start, { sum, groups }]) => ({
      start: new Date(start).toISOString(),
      ...sum.totals(),
      ...(request.by !== 'none' && {
        groups: [...groups].map(([group, groupSum]) => ({ group, ...groupSum.totals() })),
      }),
    })),
    unpricedModels: [...unpriced].sort(),
  };
}
