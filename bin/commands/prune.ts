import { pruneVectors } from '../../core/index.ts';
import {
  openApprovalTable,
  openRunTable,
  openSessionTable,
  PRUNE_BATCH,
  pruneApprovals,
  pruneKeptResults,
  pruneRuns,
  pruneSessions,
  pruneSummaries,
} from '../../core/internal.ts';
import { eraseOwner } from '../../plugins/hubos/erase-owner.ts';
import { pruneTasks } from '../../plugins/hubos/task-retention.ts';
import { type CliIO, UsageError } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';

/**
 * `hubos prune`: applies `runs.retention` (runs, decided approvals, the tool results runs kept),
 * `sessions.retention` (sessions, their summaries, memory's recall vectors) and `a2a.retention` to
 * the config's store now, every batch; with `--owner <id>`,
 * erases everything that principal owns instead (runs, steps, sessions, approvals, A2A tasks, kept results).
 */
export async function pruneCommand(
  flags: KernelFlags & { owner?: string; json: boolean },
  io: CliIO,
): Promise<number> {
  if (flags.owner !== undefined && !/^[A-Za-z0-9._:~-]{1,200}$/.test(flags.owner))
    throw new UsageError(
      `prune: "${flags.owner.slice(0, 80)}" is not a principal id (letters, digits, . _ : ~ -)`,
      'prune',
    );
  const kernel = await loadKernel('prune', flags, io);
  try {
    if (flags.owner !== undefined) {
      const erased = await eraseOwner(kernel.store, flags.owner);
      io.stdout.write(
        flags.json
          ? `${JSON.stringify(erased, null, 2)}\n`
          : `erased ${flags.owner}: ${erased.runs} run(s), ${erased.sessions} session(s) (${erased.sessionMessages} message(s)), ${erased.approvals} approval(s), ${erased.tasks} A2A task(s), ${erased.experiments} experiment(s), ${erased.keptResults} kept tool result(s), ${erased.memories} memory record(s)${erased.activeRuns ? `; ${erased.activeRuns} run(s) still going were left` : ''}\n`,
      );
      return 0;
    }
    const { runs: runsConfig, sessions: sessionsConfig, a2a } = kernel.config;
    const retention = runsConfig?.retention;
    const sessionPolicy = sessionsConfig?.retention;
    const taskPolicy = a2a?.retention;
    if (!retention && !sessionPolicy && !taskPolicy) {
      io.stderr.write(
        '✗ nothing to prune by: set runs.retention (maxAgeDays, maxRuns), sessions.retention or a2a.retention (maxAgeDays) in the config, or give --owner <id>\n',
      );
      return 1;
    }
    // Every batch, until one comes back short.
    const drain = async (batch: () => Promise<number>) => {
      let total = 0;
      for (let n = PRUNE_BATCH; n >= PRUNE_BATCH; total += n) n = await batch();
      return total;
    };
    const table = await openRunTable(kernel.store);
    const runs = retention ? await drain(() => pruneRuns(table, retention)) : 0;
    const approvalTable = await openApprovalTable(kernel.store);
    const approvals = retention
      ? await drain(() => pruneApprovals(approvalTable, retention, PRUNE_BATCH))
      : 0;
    const keptResults = retention ? await drain(() => pruneKeptResults(kernel.store, retention)) : 0;
    const sessionTable = await openSessionTable(kernel.store);
    const sessions = sessionPolicy
      ? await drain(() => pruneSessions(sessionTable, sessionPolicy, PRUNE_BATCH))
      : 0;
    // What is kept beside sessions goes with them: their summaries, memory's recall vectors.
    const days = sessionPolicy?.maxAgeDays;
    const summaries =
      days !== undefined ? await drain(() => pruneSummaries(kernel.store, days, PRUNE_BATCH)) : 0;
    const before = Date.now() - (days ?? 0) * 86_400_000;
    const vectors =
      days !== undefined ? await drain(() => pruneVectors(kernel.store, before, PRUNE_BATCH)) : 0;
    const tasks = taskPolicy ? await drain(() => pruneTasks(kernel.store, taskPolicy, PRUNE_BATCH)) : 0;
    const parts = [`pruned ${runs} ended run(s)`];
    if (approvals > 0) parts.push(`${approvals} decided approval(s)`);
    if (keptResults > 0) parts.push(`${keptResults} kept tool result(s)`);
    if (sessionPolicy) parts.push(`${sessions} idle session(s)`);
    if (summaries > 0) parts.push(`${summaries} conversation summary(ies)`);
    if (vectors > 0) parts.push(`${vectors} recall vector(s)`);
    if (taskPolicy) parts.push(`${tasks} A2A task(s) over and idle`);
    io.stdout.write(
      flags.json
        ? `${JSON.stringify({ runs, approvals, keptResults, sessions, summaries, vectors, tasks }, null, 2)}\n`
        : `${parts.join(', ')}\n`,
    );
    return 0;
  } finally {
    await kernel.close();
  }
}
