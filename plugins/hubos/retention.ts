import type { RunEngine } from '../../core/index.ts';
import { PRUNE_BATCH, pacedBatches } from '../../core/internal.ts';
import type { HubOS } from './hubos.ts';
import { pruneTasks } from './task-retention.ts';

/** Engines whose A2A tasks are pruned already: two servers on one kernel's engine prune them once. */
const pruning = new WeakSet<RunEngine>();

/**
 * A2A tasks kept beside runs (in the engine's store), pruned by the run engine's tick (on instances
 * that work queued runs), a small batch at a time at the runs' pace: those over and idle longer
 * than `a2a.retention`. Decided approvals and idle sessions are pruned by the engine itself
 * (`tendBesideRuns`: the kernel's, or the one a HubOS on a store of its own builds).
 */
export function pruneBesideRuns(hubos: HubOS): void {
  const tasks = hubos.options.kernel?.config.a2a?.retention;
  if (tasks?.maxAgeDays === undefined || pruning.has(hubos.runs)) return;
  pruning.add(hubos.runs);
  hubos.runs.upkeep(pacedBatches(() => pruneTasks(hubos.runs.store, tasks, PRUNE_BATCH), PRUNE_BATCH));
}
