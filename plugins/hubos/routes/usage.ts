import { Hono } from 'hono';
import {
  parseUsageQuery,
  priceTable,
  RUN_SURFACES,
  USAGE_BUCKETS,
  USAGE_BY,
  usageReport,
} from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';
import type { HubOSEnv } from '../kit/principal.ts';
import { describeRoute } from '../kit/route-doc.ts';

/**
 * `GET /usage`: the tokens and cost of the caller's runs' model calls (an admin's: everyone's, or
 * one owner's), in hour or day buckets, split by model, agent or owner; mounted under the API prefix.
 */
export function usageRoutes(hubos: HubOS): Hono<HubOSEnv> {
  return new Hono<HubOSEnv>().get(
    '/usage',
    describeRoute({
      summary:
        "Tokens and cost (USD) of the caller's runs' model calls (an admin key's: everyone's), totals and time buckets",
      tags: ['runs'],
      query: {
        from: 'Runs created at or after this time (ISO 8601 or ms; default: 30 days before `to`)',
        to: 'Runs created before this time (ISO 8601 or ms; default: now)',
        bucket: `Bucket length: ${Object.keys(USAGE_BUCKETS).join(', ')} (default day, UTC)`,
        by: `Split each bucket by: ${USAGE_BY.join(', ')} (default model)`,
        agent: 'Only the runs of this agent',
        via: `Only runs started this way: ${RUN_SURFACES.join(', ')}`,
        owner: "Only this principal's runs (admin keys only)",
      },
      errors: {
        USAGE_QUERY_INVALID: 'A time, bucket, grouping or filter that makes no sense (the message names it)',
        STORE_FAILED: 'The store is away: try again shortly',
      },
    }),
    // Runs count in the bucket of their creation. Cost: the built-in list prices with the config's
    // `pricing` over them; a model with no price has its tokens counted and is named in unpricedModels.
    async (c) => {
      const request = parseUsageQuery(c.req.query());
      const prices = priceTable(hubos.options.kernel?.config.pricing);
      return c.json(await usageReport(await hubos.runs.table(), c.get('principal'), request, prices));
    },
  );
}
