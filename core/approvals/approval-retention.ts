import type { RunRetention } from '../runs/run-retention.ts';
import type { ApprovalTable } from './approval-table.ts';

/**
 * Deletes at most one batch of decided approvals older than the runs' retention keeps (decided
 * before `maxAgeDays`); how many went. A run deleted takes its approvals with it already: these
 * are the ones of runs the table never held (an agent run outside the engine). Pending ones stay.
 * @internal
 */
export async function pruneApprovals(
  table: ApprovalTable,
  policy: RunRetention,
  limit: number,
  now = Date.now(),
): Promise<number> {
  if (policy.maxAgeDays === undefined) return 0;
  return table.deleteDecidedBefore(now - policy.maxAgeDays * 86_400_000, limit);
}
