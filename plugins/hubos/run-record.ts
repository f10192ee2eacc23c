import { type RunResult, type Store, type StoreValue, writeAll } from '../../core/index.ts';

/** `queued` until an instance takes it; `interrupted` when the instance running it died. */
export type RunState = 'queued' | 'running' | 'completed' | 'cancelled' | 'failed' | 'interrupted';

/** Where a run was started: the REST routes, A2A, AG-UI, an MCP `ask_<agent>` call, a Stars team. */
export type RunSurface = 'rest' | 'a2a' | 'ag-ui' | 'mcp' | 'stars';

export interface RunRecord {
  id: string;
  agent: string;
  sessionId?: string;
  /** The principal that started it: only it (and admins) can read, cancel or answer it. */
  owner?: string;
  status: RunState;
  via?: RunSurface;
  /** The instance running it (`kernel.instance.id`): its heartbeat says whether the run can still end. */
  instance?: string;
  /** Finished model steps so far. */
  steps?: number;
  createdAt: string;
  updatedAt?: string;
  startedAt?: string;
  finishedAt?: string;
  result?: RunResult;
  error?: { code: string; message: string };
}

/** A queued run's input, kept until an instance takes it. */
export interface QueuedRun {
  input: string;
}

/** Records of runs that have ended, key the run id. */
export const RUNS_NAMESPACE = 'hubos:runs';
/**
 * Records of runs not yet ended (queued or running), key the run id: what a sweep reads to find
 * a dead instance's runs. A run's record moves to RUNS_NAMESPACE when it ends.
 */
export const ACTIVE_NAMESPACE = 'hubos:runs:active';
/** Inputs of queued runs, key the run id. */
export const QUEUED_NAMESPACE = 'hubos:runs:queued';

export const isFinal = (status: RunState): boolean => status !== 'queued' && status !== 'running';

/**
 * A run's record wherever it is: ended, or still active. A run that ends between the first two
 * reads has left the active ones after joining the ended ones (see fileEnded): the third read finds it.
 */
export async function readRun(store: Store, id: string): Promise<RunRecord | undefined> {
  const ended = (await store.get(RUNS_NAMESPACE, id)) as RunRecord | undefined;
  if (ended) return ended;
  const active = (await store.get(ACTIVE_NAMESPACE, id)) as RunRecord | undefined;
  return active ?? ((await store.get(RUNS_NAMESPACE, id)) as RunRecord | undefined);
}

export function writeActive(store: Store, record: RunRecord): Promise<void> {
  return store.set(ACTIVE_NAMESPACE, record.id, record as unknown as StoreValue);
}

/** Replaces an active record only if nobody changed it meanwhile (two instances, one run). */
export function swapActive(store: Store, from: RunRecord, to: RunRecord): Promise<boolean> {
  return store.compareAndSet(
    ACTIVE_NAMESPACE,
    from.id,
    from as unknown as StoreValue,
    to as unknown as StoreValue,
  );
}

/**
 * Files an ended run's record: kept with the ended ones, gone from the active ones, in one commit
 * where the store can; otherwise in that order, so a failure between leaves it in both, which a
 * sweep files again.
 */
export function fileEnded(store: Store, record: RunRecord): Promise<void> {
  return writeAll(store, [
    { namespace: RUNS_NAMESPACE, key: record.id, value: record as unknown as StoreValue },
    { namespace: ACTIVE_NAMESPACE, key: record.id, value: undefined },
  ]);
}
