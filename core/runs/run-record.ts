import type { RunBudget } from '../agent/budget.ts';
import type { RunResult } from '../agent/events.ts';
import { CALL_SURFACES, type CallSurface } from '../call-surface.ts';

/** `queued` until an instance takes it; `interrupted` when the instance running it died. */
export type RunState = 'queued' | 'running' | 'completed' | 'cancelled' | 'failed' | 'interrupted';

/**
 * Where a run was started: the REST routes, A2A, AG-UI, an MCP `ask_<agent>` call, a Stars team,
 * a workflow, a sub-agent task or the CLI (the surfaces a tool call names, but `direct`).
 */
export type RunSurface = Exclude<CallSurface, 'direct'>;

export const RUN_SURFACES: readonly RunSurface[] = CALL_SURFACES.filter(
  (surface): surface is RunSurface => surface !== 'direct',
);
export const RUN_STATES: readonly RunState[] = [
  'queued',
  'running',
  'completed',
  'cancelled',
  'failed',
  'interrupted',
];

/** A run as the engine keeps it: one row of the runs table. */
export interface RunRecord {
  id: string;
  /** The agent it runs (or what runs: `stars:<team>`). */
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
  /** What the run was asked (an agent's input text). */
  input?: string;
  createdAt: string;
  updatedAt?: string;
  startedAt?: string;
  finishedAt?: string;
  result?: RunResult;
  error?: { code: string; message: string };
  /**
   * Whether another instance may resume it when its instance dies: an agent's run may (unless
   * `runs.durability` is `exit`: then none keeps a journal); a run with client tools, or one that is
   * not an agent's (a Stars team run), ends `interrupted` instead.
   */
  resumable?: boolean;
  /** How many times it was resumed after its instance died. */
  resumes?: number;
  /** The model it was asked to run on, when not its agent's own (`provider:model`). */
  model?: string;
  /** The run it repeats (`POST /runs/:id/again`): the page pairs the two. */
  againOf?: string;
  /** What its agent's run was asked (its budget, its user), kept for whichever instance runs it. */
  options?: RunRecordOptions;
}

/** The run options a record keeps, so a queued or taken-over run runs as it was asked. */
export interface RunRecordOptions {
  budget?: RunBudget;
  /** The caller's end user the run is for (memory is kept per principal and user). */
  userId?: string;
}

export const isFinal = (status: RunState): boolean => status !== 'queued' && status !== 'running';
