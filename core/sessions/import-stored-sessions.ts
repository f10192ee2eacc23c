import type { Message } from '../agent/messages.ts';
import { sessionOwner } from '../principal.ts';
import { readEntries, type Store, type StoreEntry, writeAll } from '../store/store.ts';
import type { SessionTable, StoredSession } from './session-table.ts';

/** Where HubOS kept a session's messages as key/value entries: `<sessionId>/<time>-<n>-<tag>`. */
const STORED_SESSIONS = 'sessions:';
/** The index of those sessions by last activity, and its record of agents filed in it. */
const OLD_INDEXES = ['hubos:sessions:activity', 'hubos:sessions:indexed'];

/**
 * Moves sessions a store kept as key/value entries (namespace `sessions:<agent>`, for every agent
 * found there, named in the config or not) into the sessions tables, each then removed, with the
 * old activity index. Several processes may do it at once: a session is written whole, in one
 * commit, only if its row is not there, and its entries are removed only after that commit, so a
 * process that reads fewer of them finds the session already written. Needs a store that lists its
 * namespaces (every store HubOS ships); a store of one's own without it keeps its entries.
 */
export async function importStoredSessions(store: Store, table: SessionTable): Promise<number> {
  if (!store.namespaces) return 0;
  let moved = 0;
  for (const namespace of await store.namespaces(STORED_SESSIONS)) {
    const agent = namespace.slice(STORED_SESSIONS.length);
    const sessions = bySession(agent, await readEntries(store, namespace));
    // A few thousand messages at a time, whole sessions each: one commit (or statement) each way.
    for (let start = 0; start < sessions.length; ) {
      const batch = [];
      let size = 0;
      while (start < sessions.length && (batch.length === 0 || size < IMPORT_BATCH)) {
        const next = sessions[start++]!;
        batch.push(next);
        size += next.keys.length;
      }
      // A session none of whose entries is a message is not written, only removed.
      moved += await table.insertMany(
        batch.map((entry) => entry.session).filter((session) => session.messages.length > 0),
      );
      await writeAll(
        store,
        batch.flatMap((entry) => entry.keys.map((key) => ({ namespace, key, value: undefined }))),
      );
    }
  }
  for (const namespace of OLD_INDEXES) {
    const keys = await store.list(namespace);
    for (let start = 0; start < keys.length; start += IMPORT_BATCH)
      await writeAll(
        store,
        keys.slice(start, start + IMPORT_BATCH).map((key) => ({ namespace, key, value: undefined })),
      );
  }
  return moved;
}

/**
 * The entries of one agent's namespace as sessions, each message in key order (the order it was
 * appended). A key is its session's id (which may hold `/`), then `/` and the message's own part,
 * which starts with the time it was written (ms, 15 digits) in the release that kept them so.
 */
function bySession(agent: string, entries: StoreEntry[]): { session: StoredSession; keys: string[] }[] {
  const found = new Map<string, { session: StoredSession; keys: string[]; messages: Message[] }>();
  const importedAt = Date.now();
  for (const { key, value } of entries) {
    const cut = key.lastIndexOf('/');
    if (cut <= 0) continue;
    const sessionId = key.slice(0, cut);
    const written = /^\d{15}-/.test(key.slice(cut + 1)) ? Number(key.slice(cut + 1, cut + 16)) : importedAt;
    let entry = found.get(sessionId);
    if (!entry) {
      const messages: Message[] = [];
      entry = {
        session: {
          agent,
          sessionId,
          owner: sessionOwner(sessionId),
          createdAt: written,
          lastActive: written,
          messages,
        },
        keys: [],
        messages,
      };
      found.set(sessionId, entry);
    }
    entry.keys.push(key);
    // A value that is not a message (a string a test or a tool left there) is dropped with its key.
    if (value && typeof value === 'object' && 'role' in value)
      entry.messages.push(value as unknown as Message);
    entry.session.createdAt = Math.min(entry.session.createdAt, written);
    entry.session.lastActive = Math.max(entry.session.lastActive, written);
  }
  return [...found.values()];
}

const IMPORT_BATCH = 2_000;
