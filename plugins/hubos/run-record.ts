import type { RunResult, Store, StoreValue } from '../../core/index.ts';

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

export const RUNS_NAMESPACE = 'hubos:runs';
/** Runs not yet ended, key `<instance>/<runId>`: what a dead instance leaves to be marked. */
export const ACTIVE_NAMESPACE = 'hubos:runs:active';
/** Inputs of queued runs, key the run id. */
export const QUEUED_NAMESPACE = 'hubos:runs:queued';

export const isFinal = (status: RunState): boolean => status !== 'queued' && status !== 'running';

export const activeKey = (instance: string, runId: string): string => `${instance}/${runId}`;

export async function readRun(store: Store, id: string): Promise<RunRecord | undefined> {
  return (await store.get(RUNS_NAMESPACE, id)) as RunRecord | undefined;
}

export function writeRun(store: Store, record: RunRecord): Promise<void> {
  return store.set(RUNS_NAMESPACE, record.id, record as unknown as StoreValue);
}

/** Replaces `from` with `to` only if nobody changed it meanwhile (two instances, one run). */
export function swapRun(store: Store, from: RunRecord, to: RunRecord): Promise<boolean> {
  return store.compareAndSet(
    RUNS_NAMESPACE,
    from.id,
    from as unknown as StoreValue,
    to as unknown as StoreValue,
  );
}
