import { sessionOwner } from '../principal.ts';
import { openSessionTable } from '../runs/open-run-table.ts';
import {
  type SessionHit,
  type SessionInfo,
  type SessionSearch,
  searchTerms,
} from '../sessions/session-table.ts';
import type { Store } from '../store/store.ts';
import type { Message } from './messages.ts';
import { SESSION_RETENTION_SCHEMA, type SessionRetention } from './session-retention.ts';

export interface SessionsConfig {
  /** Keep conversations in the store (default true). */
  persist?: boolean;
  /** Only the last N stored messages are sent to the model (default: all). */
  historyLimit?: number;
  /** How long sessions nobody writes to are kept (default: for ever). */
  retention?: SessionRetention;
}

export const SESSIONS_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    persist: { type: 'boolean', default: true },
    historyLimit: { type: 'integer', minimum: 1 },
    retention: SESSION_RETENTION_SCHEMA,
  },
  additionalProperties: false,
} as const;

/**
 * Conversation history per agent and session id, in the store's sessions tables (beside its runs):
 * each completed step is appended as it finishes, so a crash loses none of them, and a load is one
 * query. Each session has an owner, the principal it is for, by which erasure deletes it.
 */
export class Sessions {
  readonly #store: Store;
  readonly #config: SessionsConfig;

  constructor(store: Store, config: SessionsConfig = {}) {
    this.#store = store;
    this.#config = config;
  }

  async load(agent: string, sessionId: string): Promise<Message[]> {
    if (this.#config.persist === false) return [];
    const table = await openSessionTable(this.#store);
    // With a historyLimit only the last ones are read, counted by the database.
    return trimToTurnStart(await table.load(agent, sessionId, this.#config.historyLimit));
  }

  /**
   * A page of the session's history as stored, whatever `historyLimit` or a compaction sends the
   * model (what the studio shows): `limit` messages from `offset`, or the last page without one.
   * Empty when sessions are not kept or the session does not exist.
   */
  async history(
    agent: string,
    sessionId: string,
    page: { offset?: number; limit: number },
  ): Promise<{ total: number; offset: number; messages: Message[] }> {
    if (this.#config.persist === false) return { total: 0, offset: 0, messages: [] };
    const table = await openSessionTable(this.#store);
    if (page.offset !== undefined)
      return { offset: page.offset, ...(await table.page(agent, sessionId, page.offset, page.limit)) };
    // The last page: its start is known once the count is.
    const { total } = await table.page(agent, sessionId, 0, 0);
    const offset = Math.max(0, total - page.limit);
    return { offset, ...(await table.page(agent, sessionId, offset, page.limit)) };
  }

  /**
   * Appends to the session, made if it is new. `owner` is the principal it is for; without one it
   * is told by the id (`sessionKey` makes `<owner>~<id>`; a plain id is the keyless caller's).
   * `userId` is the owner's end user a new session is for (`RunOptions.userId`): memory's recall
   * searches one user's sessions.
   */
  async append(
    agent: string,
    sessionId: string,
    messages: readonly Message[],
    owner?: string,
    userId?: string,
  ): Promise<void> {
    if (this.#config.persist === false || messages.length === 0) return;
    const table = await openSessionTable(this.#store);
    await table.append(
      agent,
      sessionId,
      owner ?? sessionOwner(sessionId),
      messages,
      userId ? { userId } : undefined,
    );
  }

  /**
   * The messages of `owner`'s end user's other sessions with `agent` that say any word of `query`,
   * best matches first: what memory's recall tool reads. Nothing when sessions are not kept.
   */
  async search(query: Omit<SessionSearch, 'terms'> & { query: string }): Promise<SessionHit[]> {
    if (this.#config.persist === false) return [];
    const { query: text, ...scope } = query;
    const table = await openSessionTable(this.#store);
    return table.search({ ...scope, terms: searchTerms(text) });
  }

  /** The sessions `owner` has (with one agent, or with any), by agent then id: at most `limit`. */
  async listOwned(owner: string, options: { agent?: string; limit?: number } = {}): Promise<SessionInfo[]> {
    if (this.#config.persist === false) return [];
    const table = await openSessionTable(this.#store);
    return table.listOwned(owner, options.limit ?? 100, options.agent);
  }
}

// A history cut by `historyLimit` must not start with tool results whose call was cut away.
function trimToTurnStart(messages: Message[]): Message[] {
  const first = messages.findIndex((message) => message.role === 'user');
  // No user message in the window: what is left is the tail of a turn, unusable on its own.
  return first === -1 ? [] : messages.slice(first);
}
