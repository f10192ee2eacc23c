import type { Approvals } from '../agent/approvals.ts';
import { pruneSessions, type SessionRetention } from '../agent/session-retention.ts';
import { pruneApprovals } from '../approvals/approval-retention.ts';
import { pruneKeptResults } from '../context/kept-results.ts';
import { pruneSummaries } from '../context/summary-store.ts';
import type { Store } from '../store/store.ts';
import { openSessionTable } from './open-run-table.ts';
import { pacedBatches } from './paced-batches.ts';
import type { RunEngine } from './run-engine.ts';
import { PRUNE_BATCH, type RunRetention } from './run-retention.ts';

/**
 * What an engine looks after beside its runs.
 * @internal
 */
export interface BesideRuns {
  /** Where its runs' tool calls wait for a human (undefined: none yet). */
  approvals: () => Approvals | undefined;
  /** `runs.retention`: decided approvals older than it go, and so do the tool results of runs it no longer keeps. */
  runsRetention?: RunRetention | undefined;
  /** The store the runs' kept tool results are in (the engine's). */
  store?: Store | undefined;
  /** `sessions.retention` with the sessions' store (every agent's sessions, by their last activity). */
  sessions?: { store: Store; retention: SessionRetention | undefined } | undefined;
  onError?: (message: string) => void;
}

/**
 * Wires what belongs with an engine's runs, once per engine (the kernel's at boot, or a server's
 * own): the approvals an interrupted run was waiting for say they will never be acted on, and at
 * the engine's tick (instances that `work`) decided approvals and idle sessions are pruned, a small
 * batch at a time at the runs' pace.
 * @internal
 */
export function tendBesideRuns(engine: RunEngine, beside: BesideRuns): void {
  engine.onEnd((record) => {
    if (record.status !== 'interrupted') return;
    void beside
      .approvals()
      ?.abandon(record.id, record.error?.message ?? 'the run was interrupted')
      .catch((error: unknown) => beside.onError?.(`run ${record.id}: ${String(error)}`));
  });
  const runsRetention = beside.runsRetention;
  if (runsRetention?.maxAgeDays !== undefined)
    engine.upkeep(
      pacedBatches(async () => {
        const table = await beside.approvals()?.table();
        return table ? pruneApprovals(table, runsRetention, PRUNE_BATCH) : 0;
      }, PRUNE_BATCH),
    );
  const { store } = beside;
  if (store && (runsRetention?.maxAgeDays !== undefined || runsRetention?.maxRuns !== undefined))
    engine.upkeep(pacedBatches(() => pruneKeptResults(store, runsRetention), PRUNE_BATCH));
  const sessions = beside.sessions;
  const sessionsRetention = sessions?.retention;
  if (sessions && sessionsRetention?.maxAgeDays !== undefined)
    engine.upkeep(
      pacedBatches(
        async () => pruneSessions(await openSessionTable(sessions.store), sessionsRetention, PRUNE_BATCH),
        PRUNE_BATCH,
      ),
    );
  // Summaries of older turns go as sessions do; one still needed is written again from its session.
  if (sessions && sessionsRetention?.maxAgeDays !== undefined)
    engine.upkeep(
      pacedBatches(
        async () => pruneSummaries(sessions.store, sessionsRetention.maxAgeDays!, PRUNE_BATCH),
        PRUNE_BATCH,
      ),
    );
}
