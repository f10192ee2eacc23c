import { idAt, type RunTable } from './run-table.ts';

/** How long ended runs (and their steps) are kept: by age, by number, or both. */
export interface RunRetention {
  /** Ended runs older than this many days are deleted. */
  maxAgeDays?: number;
  /** Only the newest this many runs are kept (ended ones beyond are deleted). */
  maxRuns?: number;
}

export const RUN_RETENTION_SCHEMA = {
  type: 'object',
  description: 'How long ended runs and their steps are kept; applied in the background in small batches.',
  properties: {
    maxAgeDays: {
      type: 'number',
      exclusiveMinimum: 0,
      description: 'Delete ended runs older than this many days.',
    },
    maxRuns: { type: 'integer', minimum: 1, description: 'Keep only the newest this many runs.' },
  },
  additionalProperties: false,
} as const;

/**
 * What a run keeps while it goes: `sync` keeps each step's messages (its journal) before the run
 * goes on, so another instance resumes the run of one that died; `exit` keeps none, and such a run
 * ends `interrupted`. Its record and its step rows are written either way.
 */
export type RunDurability = 'sync' | 'exit';

/** `runs` in the config. */
export interface RunsConfig {
  /** Whether runs of an instance that died resume on another (`sync`, the default) or end `interrupted` (`exit`). */
  durability?: RunDurability;
  /** How long ended runs and their steps are kept (default: for ever). */
  retention?: RunRetention;
  /**
   * How long an ended run's events stay on the bus (ms, default 5 minutes): a client that lost its
   * stream resumes within that with Last-Event-ID; later it gets the run's end from its record.
   */
  eventsTtlMs?: number;
  /**
   * Whether runs record their steps (model and tool calls, with previews and payloads) for
   * `GET /runs/:id/steps` (default true); false records none.
   */
  recordSteps?: boolean;
}

export const RUNS_CONFIG_SCHEMA = {
  type: 'object',
  description:
    'The run engine: what a run keeps while it goes, how long ended runs and their events are kept.',
  properties: {
    durability: {
      enum: ['sync', 'exit'],
      description:
        "What a run keeps while it goes. 'sync' (default): each step is kept before the run goes on, and the runs of an instance that died resume on another. 'exit': no journal (two store writes fewer per tool-using step); such a run ends interrupted. Records and steps are written either way.",
    },
    retention: RUN_RETENTION_SCHEMA,
    eventsTtlMs: {
      type: 'integer',
      minimum: 1000,
      maximum: 86400000,
      description:
        "How long an ended run's events stay on the bus for followers resuming with Last-Event-ID (ms, default 300000: 5 minutes); after that a follower gets the run's end from its record.",
    },
    recordSteps: {
      type: 'boolean',
      description:
        "Whether runs record their steps (model and tool calls, sub-agents' and Stars members' too, with previews and payloads) for GET /runs/:id/steps (default true). false records none.",
    },
  },
  additionalProperties: false,
} as const;

/**
 * A batch: small enough that a prune never holds the store for long.
 * @internal
 */
export const PRUNE_BATCH = 500;

/**
 * Deletes at most one batch of ended runs the policy no longer keeps, oldest first; how many went.
 * Called again while it returns a full batch. Running and queued runs are never deleted.
 * @internal
 */
export async function pruneRuns(table: RunTable, policy: RunRetention, now = Date.now()): Promise<number> {
  const bounds: string[] = [];
  if (policy.maxAgeDays !== undefined) bounds.push(idAt(now - policy.maxAgeDays * 86_400_000));
  if (policy.maxRuns !== undefined) {
    // Runs older than the maxRuns-th newest go.
    const oldestKept = await table.idAtRank(policy.maxRuns - 1);
    if (oldestKept !== undefined) bounds.push(oldestKept);
  }
  if (bounds.length === 0) return 0;
  const before = bounds.reduce((a, b) => (a > b ? a : b));
  return table.deleteMany(await table.endedBefore(before, PRUNE_BATCH));
}

/**
 * Deletes every ended run of `owner`, a batch at a time; how many went.
 * @internal
 */
export async function eraseRunsOf(table: RunTable, owner: string): Promise<number> {
  let erased = 0;
  for (;;) {
    const ids = await table.endedBefore('\u{10ffff}', PRUNE_BATCH, owner);
    erased += await table.deleteMany(ids);
    if (ids.length < PRUNE_BATCH) return erased;
  }
}
