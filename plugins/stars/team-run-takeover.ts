import type { RunEngine } from '../../core/index.ts';

/** What the engine names a team run: `stars:<team>`. */
export const TEAM_RUN_PREFIX = 'stars:';

/** Why a team run whose instance died is not run on: its reason in the interrupted record. */
export const TEAM_RUN_NOT_RESUMED =
  "a Stars team run does not resume on another instance (its members' conversations and messages lived in the one that stopped)";

/**
 * Answers for team runs whose instance died: the instance that finds one ends it `interrupted`,
 * saying why (a team run keeps no steps to resume from: its members talk to each other within the
 * run, in memory). Returns the unregistration.
 */
export function endOrphanedTeamRuns(engine: RunEngine): () => void {
  return engine.resumable(TEAM_RUN_PREFIX, () => TEAM_RUN_NOT_RESUMED);
}
