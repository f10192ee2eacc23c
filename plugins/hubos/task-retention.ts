// A2A tasks kept no longer than `a2a.retention` says: outside a2a/, so the server loads it without the A2A SDK.
import type { Store } from '../../core/index.ts';
import { FINAL_TASK_STATES, taskTables } from './a2a-task-records.ts';

/** How long A2A tasks are kept (`a2a.retention`). */
export interface TaskRetention {
  /** Tasks over (completed, failed, canceled, rejected) and not updated for longer than this many days are deleted. */
  maxAgeDays?: number;
}

/** `a2a` in the config. */
export interface A2AConfig {
  /** How long tasks that are over are kept (default: for ever). */
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
          description:
            'Delete tasks that are over (completed, failed, canceled, rejected) and not updated for longer than this many days; tasks still working or waiting for input stay.',
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

/**
 * Deletes at most one batch of tasks that are over and were last updated before the policy keeps
 * (each with its link to its run), oldest first, read from the tasks' state index; how many went
 * (a full batch: call again). A task still working, submitted or waiting for input stays.
 */
export async function pruneTasks(
  store: Store,
  policy: TaskRetention,
  limit: number,
  now = Date.now(),
): Promise<number> {
  if (policy.maxAgeDays === undefined) return 0;
  const { tasks, runs } = await taskTables(store);
  const keys = await tasks.deleteWhere({
    tag: FINAL_TASK_STATES,
    before: now - policy.maxAgeDays * 86_400_000,
    limit,
  });
  await runs.deleteKeys(keys);
  return keys.length;
}
