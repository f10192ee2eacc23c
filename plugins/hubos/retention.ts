import {
  openSessionTable,
  PRUNE_BATCH,
  pacedBatches,
  pruneApprovals,
  pruneSessions,
} from '../../core/internal.ts';
import type { HubOS } from './hubos.ts';
import { pruneTasks } from './task-retention.ts';

/**
 * What is kept beside runs, pruned by the run engine's tick (on instances that work queued runs),
 * each a small batch at a time at the runs' pace: decided approvals older than `runs.retention`,
 * sessions idle longer than `sessions.retention`, A2A tasks idle longer than `a2a.retention`.
 */
export function pruneBesideRuns(hubos: HubOS): void {
  const kernel = hubos.options.kernel;
  const config = kernel?.config;
  const runsRetention = config?.runs?.retention;
  if (runsRetention?.maxAgeDays !== undefined)
    hubos.runs.upkeep(
      pacedBatches(async () => {
        const table = await hubos.approvals?.table();
        return table ? pruneApprovals(table, runsRetention, PRUNE_BATCH) : 0;
      }, PRUNE_BATCH),
    );
  const sessions = config?.sessions?.retention;
  if (kernel && sessions?.maxAgeDays !== undefined)
    hubos.runs.upkeep(
      // Every agent's, by the sessions' last-active index: agents removed from the config too.
      pacedBatches(
        async () => pruneSessions(await openSessionTable(kernel.store), sessions, PRUNE_BATCH),
        PRUNE_BATCH,
      ),
    );
  const tasks = config?.a2a?.retention;
  if (tasks?.maxAgeDays !== undefined)
    hubos.runs.upkeep(
      pacedBatches(
        () => pruneTasks(hubos.runs.store, tasks, PRUNE_BATCH).then((sweep) => sweep.read),
        PRUNE_BATCH,
      ),
    );
}
