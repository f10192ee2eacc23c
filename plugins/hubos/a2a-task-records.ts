// The tables A2A tasks are kept in: outside a2a/, so retention and erasure use them without the A2A SDK.
import { type RecordTable, recordTable, type Store, type StoreValue } from '../../core/index.ts';
import { importStoredTasks } from './import-stored-tasks.ts';

/** A task as stored: the spec's JSON (`Task.toJSON`) and the principal that created it. */
export interface StoredTask {
  /** Undefined for a task stored before owners were kept: nobody's but the admins'. */
  owner?: string;
  task: StoreValue;
}

/** Which run serves a task's current turn. */
export interface TaskRun {
  runId: string;
}

/** The tasks of a store (every agent's, keyed `<agent>/<taskId>`) and their runs, under the same keys. */
export interface TaskTables {
  tasks: RecordTable<StoredTask>;
  runs: RecordTable<TaskRun>;
}

/**
 * States a task is over in: what retention may delete. A task `input-required` waits for an
 * answer (its approvals pending), `working` or `submitted` for its run: those stay however idle.
 */
export const FINAL_TASK_STATES = [
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
] as const;

/** A stored task's status (the JSON names of the spec's states). */
function statusOf(stored: StoredTask): { state?: unknown; timestamp?: unknown } {
  const task = stored.task as { status?: { state?: unknown; timestamp?: unknown } } | null;
  return task?.status ?? {};
}

/** When a task's status was last set (ms), 0 when it says none: what lists and retention order by. */
export function taskTime(stored: StoredTask): number {
  const { timestamp } = statusOf(stored);
  const ms = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

/** A task's state as its JSON names it (`TASK_STATE_WORKING`…), if it has one. */
export function taskState(stored: StoredTask): string | undefined {
  const { state } = statusOf(stored);
  return typeof state === 'string' && state !== '' ? state : undefined;
}

const opened = new WeakMap<Store, Promise<TaskTables>>();

/**
 * The task tables of a store, once per store: tasks a store kept as key/value entries (HubOS
 * before these tables) move into them at the first open.
 */
export function taskTables(store: Store): Promise<TaskTables> {
  let tables = opened.get(store);
  if (!tables) {
    const made: TaskTables = {
      tasks: recordTable<StoredTask>(store, 'a2a-tasks', {
        owner: (stored) => stored.owner,
        time: taskTime,
        tag: taskState,
      }),
      runs: recordTable<TaskRun>(store, 'a2a-task-runs'),
    };
    tables = importStoredTasks(store, made).then(() => made);
    opened.set(store, tables);
    tables.catch(() => opened.delete(store));
  }
  return tables;
}
