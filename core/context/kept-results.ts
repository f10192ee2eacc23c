import { randomUUID } from 'node:crypto';
import { HubosError } from '../errors.ts';
import type { RecordTable } from '../records/record-table.ts';
import { recordTable } from '../records/typed-record-table.ts';
import { openRunTable } from '../runs/open-run-table.ts';
import { isFinal } from '../runs/run-record.ts';
import type { RunRetention } from '../runs/run-retention.ts';
import { perStore } from '../store/per-store.ts';
import type { Store } from '../store/store.ts';

/** A tool result kept whole because it was too large for the model. */
export interface KeptResult {
  /**
   * The principal of the run that made it: only its runs read it, and its erasure deletes it. A run
   * started in code without one is the keyless caller's (`local`), as its session is.
   */
  principal: string;
  runId: string;
  agent: string;
  tool: string;
  callId: string;
  text: string;
  /** Filed under the run's start (read from a time-ordered run id), so it goes when the run does. */
  time: number;
}

/** What retention lists: the run a kept result belongs to, without its (large) text. */
type KeptIndex = Pick<KeptResult, 'principal' | 'runId' | 'time'>;

interface KeptTables {
  /** The results, text and all: read one at a time, by handle. */
  results: RecordTable<KeptResult>;
  /** Their runs: what retention lists, a page at a time, never reading a text. */
  runs: RecordTable<KeptIndex>;
}

const BATCH = 500;
const tablesOf = perStore((store): KeptTables => {
  const indexes = { owner: (kept: KeptIndex) => kept.principal, time: (kept: KeptIndex) => kept.time };
  return {
    results: recordTable<KeptResult>(store, 'hubos.kept-results', indexes),
    runs: recordTable<KeptIndex>(store, 'hubos.kept-result-runs', indexes),
  };
});

/**
 * The time a run started, read from its id when it is a UUID version 7 (the run engine's ids),
 * else now: a run without a record (a direct `agent.run()`) is aged from when its result was kept.
 */
export function runStartOf(runId: string, now = Date.now()): number {
  const at = /^([0-9a-f]{8})-([0-9a-f]{4})-7/i.exec(runId);
  return at ? Number.parseInt(at[1]! + at[2]!, 16) : now;
}

/** Keeps `text` whole and returns its handle: unguessable, and readable only by the same principal. */
export async function keepResult(
  store: Store,
  kept: Omit<KeptResult, 'time' | 'principal'> & { principal?: string | undefined },
): Promise<string> {
  const handle = `result-${randomUUID().replaceAll('-', '')}`;
  const value: KeptResult = {
    principal: kept.principal ?? LOCAL_OWNER,
    runId: kept.runId,
    agent: kept.agent,
    tool: kept.tool,
    callId: kept.callId,
    text: kept.text,
    time: runStartOf(kept.runId),
  };
  const { results, runs } = tablesOf(store);
  // The index first: a result whose index write failed would never be pruned.
  await runs.put(handle, {
    principal: value.principal,
    runId: value.runId,
    time: value.time,
  });
  await results.put(handle, value);
  return handle;
}

/**
 * The kept result under `handle` if `principal`'s runs kept it. Another principal's handle reads
 * as missing, with the same words, so that a caller cannot learn which handles exist.
 */
export async function readKept(
  store: Store,
  handle: string,
  principal: string | undefined,
): Promise<KeptResult> {
  const found = HANDLE.test(handle) ? await tablesOf(store).results.get(handle) : undefined;
  if (!found || found.principal !== (principal ?? LOCAL_OWNER))
    throw new HubosError(
      'TOOL_INPUT_INVALID',
      `no kept result "${handle.slice(0, 80)}" for this caller: use a handle a result of this conversation gave; kept results expire with their run`,
    );
  return found;
}

const HANDLE = /^result-[0-9a-f]{32}$/;
/** Whose a result of a run for nobody is: the keyless caller's, as `sessionOwner` says of sessions. */
const LOCAL_OWNER = 'local';

/**
 * Deletes every result `owner`'s runs kept, a batch at a time; how many went.
 * @internal
 */
export async function eraseKeptResults(store: Store, owner: string): Promise<number> {
  const { results, runs } = tablesOf(store);
  let erased = 0;
  for (;;) {
    const keys = await results.deleteWhere({ owner, limit: BATCH });
    erased += keys.length;
    if (keys.length < BATCH) break;
  }
  while ((await runs.deleteWhere({ owner, limit: BATCH })).length === BATCH);
  return erased;
}

/**
 * Deletes at most one batch of the kept results of runs `runs.retention` no longer keeps: filed
 * before the bound the runs' own pruning uses, unless their run is still going. How many went.
 * @internal
 */
export async function pruneKeptResults(
  store: Store,
  retention: RunRetention,
  now = Date.now(),
): Promise<number> {
  const runs = await openRunTable(store);
  const bounds: number[] = [];
  if (retention.maxAgeDays !== undefined) bounds.push(now - retention.maxAgeDays * 86_400_000);
  if (retention.maxRuns !== undefined) {
    const oldestKept = await runs.idAtRank(retention.maxRuns - 1);
    if (oldestKept !== undefined) bounds.push(runStartOf(oldestKept, 0));
  }
  if (bounds.length === 0) return 0;
  const { results, runs: index } = tablesOf(store);
  const page = await index.list({ before: Math.max(...bounds), order: 'oldest', limit: BATCH });
  const going = new Map<string, boolean>();
  const gone: string[] = [];
  for (const entry of page.entries) {
    const { runId } = entry.value;
    if (!going.has(runId)) {
      const record = await runs.get(runId);
      going.set(runId, record !== undefined && !isFinal(record.status));
    }
    if (!going.get(runId)) gone.push(entry.key);
  }
  if (gone.length === 0) return 0;
  await results.deleteKeys(gone);
  return index.deleteKeys(gone);
}
