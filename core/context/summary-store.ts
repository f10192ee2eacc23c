import { createHash } from 'node:crypto';
import type { Message } from '../agent/messages.ts';
import type { RecordTable } from '../records/record-table.ts';
import { recordTable } from '../records/typed-record-table.ts';
import { perStore } from '../store/per-store.ts';
import type { Store } from '../store/store.ts';

/**
 * A conversation's summary: what its first `through` messages said, kept per agent and session so
 * the next turn starts from it instead of summarizing again. `anchor` tells the last message it
 * covers, so a history loaded shorter (`sessions.historyLimit`) still finds where it ends.
 */
export interface ContextSummary {
  agent: string;
  sessionId: string;
  /** The principal the session is for: erasure deletes its summaries by it. */
  owner: string;
  summary: string;
  /** Messages of the session it covers, from the first. */
  through: number;
  anchor: string;
  /**
   * The first message of the history it was cut from (`anchorOf`): a history that starts elsewhere
   * was loaded shorter, so the summary's end has moved. Absent in summaries kept before it was.
   */
  first?: string;
  /** The model that wrote it. */
  model: string;
  updatedAt: number;
}

/** The store's table of summaries (a typed record table: no migration of its own). */
export const summaryTable: (store: Store) => RecordTable<ContextSummary> = perStore((store) =>
  recordTable<ContextSummary>(store, 'hubos.context-summaries', {
    owner: (summary) => summary.owner,
    time: (summary) => summary.updatedAt,
  }),
);

/** The record key of an agent's session: a hash, since a session id may be longer than a key may be. */
export function summaryKey(agent: string, sessionId: string): string {
  return createHash('sha256')
    .update(JSON.stringify([agent, sessionId]))
    .digest('base64url');
}

/**
 * Deletes every summary `owner`'s sessions have; resolves with how many.
 * @internal
 */
export async function eraseSummariesOf(store: Store, owner: string): Promise<number> {
  const table = summaryTable(store);
  let erased = 0;
  for (let batch = -1; batch !== 0; erased += batch)
    batch = (await table.deleteWhere({ owner, limit: 500 })).length;
  return erased;
}

/**
 * Deletes at most `limit` summaries not written for `maxAgeDays` (as idle sessions go); how many.
 * @internal
 */
export async function pruneSummaries(
  store: Store,
  maxAgeDays: number,
  limit: number,
  now = Date.now(),
): Promise<number> {
  const keys = await summaryTable(store).deleteWhere({ before: now - maxAgeDays * 86_400_000, limit });
  return keys.length;
}

/** A short fingerprint of a message: its role, length and ends (cheap, and enough to find it again). */
export function anchorOf(message: Message): string {
  const content = message.content ?? '';
  const calls =
    message.role === 'assistant' ? (message.toolCalls?.map((call) => call.id).join(',') ?? '') : '';
  const id = message.role === 'tool' ? message.toolCallId : '';
  return `${message.role}:${content.length}:${id}${calls}:${content.slice(0, 48)}:${content.slice(-48)}`;
}
