// A2A tasks kept no longer than `a2a.retention` says: outside a2a/, so the server loads it without the A2A SDK.
import { readEntries, type Store } from '../../core/index.ts';
import { IdleIndex, type IdleSweep } from '../../core/internal.ts';

/** Where tasks are kept (`<agent>/<taskId>`), and which run serves each. */
export const TASKS_NAMESPACE = 'hubos:a2a:tasks';
export const TASK_RUNS_NAMESPACE = 'hubos:a2a:task-runs';
/** When each task was last saved, `<minute>/<agent>/<taskId>`: what retention reads. */
const ACTIVITY = 'hubos:a2a:task-activity';
/** Set once the tasks stored before the index was kept have been filed in it. */
const INDEXED = 'hubos:a2a:task-activity-indexed';

/** How long A2A tasks are kept (`a2a.retention`). */
export interface TaskRetention {
  /** Tasks not updated for longer than this many days are deleted. */
  maxAgeDays?: number;
}

/** `a2a` in the config. */
export interface A2AConfig {
  /** How long tasks nobody updates are kept (default: for ever). */
  retention?: TaskRetention;
}

export const A2A_CONFIG_SCHEMA = {
  type: 'object',
  description: "The server's A2A endpoints: how long their tasks are kept.",
  properties: {
    retention: {
      type: 'object',
      description: 'How long A2A tasks are kept; applied in the background in small batches.',
      properties: {
        maxAgeDays: {
          type: 'number',
          exclusiveMinimum: 0,
          description: 'Delete tasks not updated for longer than this many days.',
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

/** The index of a store's tasks by last update (one per store, shared by the agents' task stores). */
export const taskActivity = (store: Store): IdleIndex => IdleIndex.of(store, ACTIVITY);

/** When a stored task was last updated (its status's time), 0 when it says none. */
function updatedAt(value: unknown): number {
  const stored = value as { task?: { status?: { timestamp?: string } }; status?: { timestamp?: string } };
  const timestamp = (stored?.task ?? stored)?.status?.timestamp;
  const ms = timestamp ? Date.parse(timestamp) : Number.NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

/**
 * Deletes at most one batch of tasks not updated for longer than the policy keeps, oldest first
 * (each with its link to its run); says how many went and how many index entries it read (a full
 * batch: call again). Tasks stored by a HubOS that kept no index are filed first, once.
 */
export async function pruneTasks(
  store: Store,
  policy: TaskRetention,
  limit: number,
  now = Date.now(),
): Promise<IdleSweep> {
  if (policy.maxAgeDays === undefined) return { removed: 0, read: 0 };
  const index = taskActivity(store);
  if ((await store.get(INDEXED, 'all')) === undefined) {
    for (const { key, value } of await readEntries(store, TASKS_NAMESPACE))
      await index.touch(key, updatedAt(value));
    await store.set(INDEXED, 'all', Date.now());
  }
  return index.sweep(
    now - policy.maxAgeDays * 86_400_000,
    limit,
    async (id) => {
      const value = await store.get(TASKS_NAMESPACE, id);
      return value === undefined ? undefined : updatedAt(value);
    },
    async (id) => {
      await store.delete(TASK_RUNS_NAMESPACE, id);
      await store.delete(TASKS_NAMESPACE, id);
    },
  );
}
