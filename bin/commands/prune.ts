import { openRunTable, pruneRuns } from '../../core/internal.ts';
import { eraseOwner } from '../../plugins/hubos/erase-owner.ts';
import { type CliIO, UsageError } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';

/**
 * `hubos prune`: applies `runs.retention` to the config's store now, every batch; with `--owner <id>`,
 * erases everything that principal owns instead (runs, steps, sessions, approvals, A2A tasks).
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
      const agents = kernel.listAgents().map((agent) => agent.id);
      const erased = await eraseOwner(kernel.store, flags.owner, agents);
      io.stdout.write(
        flags.json
          ? `${JSON.stringify(erased, null, 2)}\n`
          : `erased ${flags.owner}: ${erased.runs} run(s), ${erased.sessionMessages} session message(s), ${erased.approvals} approval(s), ${erased.tasks} A2A task(s)${erased.activeRuns ? `; ${erased.activeRuns} run(s) still going were left` : ''}\n`,
      );
      return 0;
    }
    const retention = kernel.config.runs?.retention;
    if (!retention) {
      io.stderr.write(
        '✗ nothing to prune by: set runs.retention (maxAgeDays, maxRuns) in the config, or give --owner <id>\n',
      );
      return 1;
    }
    const table = await openRunTable(kernel.store);
    let runs = 0;
    for (let batch = await pruneRuns(table, retention); batch > 0; batch = await pruneRuns(table, retention))
      runs += batch;
    io.stdout.write(flags.json ? `${JSON.stringify({ runs }, null, 2)}\n` : `pruned ${runs} ended run(s)\n`);
    return 0;
  } finally {
    await kernel.close();
  }
}
