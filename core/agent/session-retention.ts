import { IdleIndex, type IdleSweep } from '../store/idle-index.ts';
import { readEntries, type Store, writeAll } from '../store/store.ts';

/** When each session was last written, `<minute>/<agent>/<session>`: what retention reads. */
const ACTIVITY = 'hubos:sessions:activity';
/** Agents whose sessions, stored before the index was kept, have been filed in it. */
const INDEXED = 'hubos:sessions:indexed';

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
 * The index of a store's sessions by last activity (one per store, shared by its writers).
 * @internal
 */
export const sessionActivity = (store: Store): IdleIndex => IdleIndex.of(store, ACTIVITY);

const messagesOf = (agent: string) => `sessions:${agent}`;
/** A message key starts with its session, then the time it was written (ms, 15 digits). */
const timeOfKey = (key: string) => Number(key.slice(key.indexOf('/') + 1, key.indexOf('/') + 16));

/**
 * Deletes at most one batch of sessions idle for longer than the policy keeps, oldest first;
 * says how many went and how many index entries it read (a full batch: call again). The sessions of `agents`
 * stored by a HubOS that kept no index are filed first, once per agent.
 * @internal
 */
export async function pruneSessions(
  store: Store,
  policy: SessionRetention,
  agents: readonly string[],
  limit: number,
  now = Date.now(),
): Promise<IdleSweep> {
  if (policy.maxAgeDays === undefined) return { removed: 0, read: 0 };
  for (const agent of agents) await indexStoredSessions(store, agent);
  const cutoff = now - policy.maxAgeDays * 86_400_000;
  return sessionActivity(store).sweep(
    cutoff,
    limit,
    async (id) => {
      const [agent, session] = splitId(id);
      const [last] = await readEntries(store, messagesOf(agent), `${session}/`, {
        delimiter: '/',
        limit: 1,
        fromEnd: true,
      });
      return last && timeOfKey(last.key);
    },
    async (id) => {
      const [agent, session] = splitId(id);
      const keys = await store.list(messagesOf(agent), `${session}/`);
      await writeAll(
        store,
        keys.map((key) => ({ namespace: messagesOf(agent), key, value: undefined })),
      );
    },
  );
}

const splitId = (id: string): [string, string] => [
  id.slice(0, id.indexOf('/')),
  id.slice(id.indexOf('/') + 1),
];

/** Files each session of `agent` in the index once, by its last message (sessions kept before it). */
async function indexStoredSessions(store: Store, agent: string): Promise<void> {
  if ((await store.get(INDEXED, agent)) !== undefined) return;
  const last = new Map<string, number>();
  for (const key of await store.list(messagesOf(agent))) {
    const session = key.slice(0, key.indexOf('/'));
    last.set(session, Math.max(last.get(session) ?? 0, timeOfKey(key)));
  }
  const index = sessionActivity(store);
  for (const [session, at] of last) await index.touch(`${agent}/${session}`, at);
  await store.set(INDEXED, agent, Date.now());
}
