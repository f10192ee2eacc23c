import type { SessionTable } from '../sessions/session-table.ts';

/** How long sessions are kept. */
export interface SessionRetention {
  /** Sessions not written to for longer than this many days are deleted. */
  maxAgeDays?: number;
}

export const SESSION_RETENTION_SCHEMA = {
  type: 'object',
  description: 'How long idle sessions are kept; applied in the background in small batches.',
  properties: {
    maxAgeDays: {
      type: 'number',
      exclusiveMinimum: 0,
      description: 'Delete sessions nobody has written to for longer than this many days.',
    },
  },
  additionalProperties: false,
} as const;

/**
 * Deletes at most one batch of sessions idle for longer than the policy keeps, oldest first, of
 * every agent (read from the sessions' last-active index, whatever agents the config names); how
 * many went. A full batch: call again.
 * @internal
 */
export async function pruneSessions(
  table: SessionTable,
  policy: SessionRetention,
  limit: number,
  now = Date.now(),
): Promise<number> {
  if (policy.maxAgeDays === undefined) return 0;
  return table.deleteIdleBefore(now - policy.maxAgeDays * 86_400_000, limit);
}
