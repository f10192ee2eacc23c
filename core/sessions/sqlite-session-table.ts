import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Message } from '../agent/messages.ts';
import { onSqlite } from '../db/sqlite-failure.ts';
import { immediately } from '../db/sqlite-transaction.ts';
import {
  type AppendOptions,
  checkLimit,
  type HitRow,
  hitFromRow,
  MAX_CANDIDATES,
  SESSION_COLUMNS,
  type SessionHit,
  type SessionInfo,
  type SessionPage,
  type SessionRow,
  type SessionSearch,
  type SessionsDeleted,
  type SessionTable,
  type StoredSession,
  selective,
  sessionFromRow,
} from './session-table.ts';

type Key = { agent: string; session_id: string };

/**
 * The sessions tables in a SQLite file (or in memory). Every write is one IMMEDIATE transaction:
 * the file's write lock is taken first, so an append's numbers are reserved and used before any
 * other process (or handle) can reserve its own.
 */
export class SqliteSessionTable implements SessionTable {
  readonly #db: DatabaseSync;
  readonly #label: string;
  readonly #reserve: StatementSync;
  readonly #insertMessage: StatementSync;
  readonly #appended: StatementSync;
  readonly #insertSession: StatementSync;
  readonly #loadAll: StatementSync;
  readonly #loadLast: StatementSync;
  readonly #count: StatementSync;
  readonly #page: StatementSync;
  readonly #owned: StatementSync;
  readonly #ownedOfAgent: StatementSync;
  readonly #idle: StatementSync;
  readonly #ownedKeys: StatementSync;
  readonly #deleteMessages: StatementSync;
  readonly #deleteSession: StatementSync;
  readonly #search: StatementSync;
  readonly #termCounts: StatementSync;

  constructor(db: DatabaseSync, label: string) {
    this.#db = db;
    this.#label = label;
    // The new count comes back: this append's messages are numbered up to it.
    this.#reserve = db.prepare(
      `INSERT INTO hubos_sessions (${SESSION_COLUMNS}, user_id) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent, session_id) DO UPDATE SET message_count = message_count + excluded.message_count,
         last_active = max(last_active, excluded.last_active)
       RETURNING message_count`,
    );
    this.#insertMessage = db.prepare(
      'INSERT INTO hubos_session_messages (agent, session_id, seq, message, append_id) VALUES (?, ?, ?, ?, ?)',
    );
    this.#appended = db.prepare(
      'SELECT 1 FROM hubos_session_messages WHERE agent = ? AND session_id = ? AND append_id = ?',
    );
    this.#insertSession = db.prepare(
      `INSERT INTO hubos_sessions (${SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent, session_id) DO NOTHING`,
    );
    this.#loadAll = db.prepare(
      'SELECT message FROM hubos_session_messages WHERE agent = ? AND session_id = ? ORDER BY seq',
    );
    this.#loadLast = db.prepare(
      `SELECT message FROM (SELECT seq, message FROM hubos_session_messages
         WHERE agent = ? AND session_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`,
    );
    this.#count = db.prepare('SELECT message_count FROM hubos_sessions WHERE agent = ? AND session_id = ?');
    this.#page = db.prepare(
      `SELECT message FROM hubos_session_messages WHERE agent = ? AND session_id = ?
         ORDER BY seq LIMIT ? OFFSET ?`,
    );
    this.#owned = db.prepare(
      `SELECT ${SESSION_COLUMNS} FROM hubos_sessions WHERE owner = ? ORDER BY agent, session_id LIMIT ?`,
    );
    this.#ownedOfAgent = db.prepare(
      `SELECT ${SESSION_COLUMNS} FROM hubos_sessions WHERE owner = ? AND agent = ? ORDER BY session_id LIMIT ?`,
    );
    this.#idle = db.prepare(
      'SELECT agent, session_id FROM hubos_sessions WHERE last_active < ? ORDER BY last_active LIMIT ?',
    );
    this.#ownedKeys = db.prepare('SELECT agent, session_id FROM hubos_sessions WHERE owner = ? LIMIT ?');
    this.#deleteMessages = db.prepare(
      'DELETE FROM hubos_session_messages WHERE agent = ? AND session_id = ?',
    );
    this.#deleteSession = db.prepare('DELETE FROM hubos_sessions WHERE agent = ? AND session_id = ?');
    // The index finds the matches, the sessions' rows keep the owner's, user's and agent's; bm25
    // ranks them (lower is better).
    this.#search = db.prepare(
      `SELECT session_id, seq, message, last_active FROM (
         SELECT m.session_id, m.seq, m.message, s.last_active, bm25(hubos_session_search) AS rank
         FROM hubos_session_search f
         JOIN hubos_session_messages m ON m.rowid = f.rowid
         JOIN hubos_sessions s ON s.agent = m.agent AND s.session_id = m.session_id
         WHERE hubos_session_search MATCH ? AND s.owner = ? AND s.user_id = ? AND s.agent = ?
           AND s.session_id <> ?
         ORDER BY f.rowid DESC LIMIT ${MAX_CANDIDATES})
       ORDER BY rank LIMIT ?`,
    );
    this.#termCounts = db.prepare(
      'SELECT term, doc FROM hubos_session_search_terms WHERE term IN (SELECT value FROM json_each(?))',
    );
  }

  async append(
    agent: string,
    sessionId: string,
    owner: string,
    messages: readonly Message[],
    { at = Date.now(), appendId, userId = '' }: AppendOptions = {},
  ): Promise<void> {
    if (messages.length === 0) return;
    const texts = messages.map((message) => JSON.stringify(message));
    this.#run(() =>
      immediately(this.#db, () => {
        // Nothing here runs a statement again by itself: only an id the caller gives is looked for.
        if (appendId !== undefined && this.#appended.get(agent, sessionId, appendId)) return;
        const { message_count } = this.#reserve.get(
          agent,
          sessionId,
          owner,
          at,
          at,
          texts.length,
          userId,
        ) as {
          message_count: number;
        };
        const first = Number(message_count) - texts.length;
        for (const [i, text] of texts.entries())
          this.#insertMessage.run(agent, sessionId, first + i, text, i === 0 ? (appendId ?? null) : null);
      }),
    );
  }

  async load(agent: string, sessionId: string, limit?: number): Promise<Message[]> {
    if (limit !== undefined) checkLimit('sessions.load', limit);
    const rows = this.#run(() =>
      limit === undefined ? this.#loadAll.all(agent, sessionId) : this.#loadLast.all(agent, sessionId, limit),
    ) as { message: string }[];
    return rows.map((row) => JSON.parse(row.message) as Message);
  }

  async page(agent: string, sessionId: string, offset: number, limit: number): Promise<SessionPage> {
    checkLimit('sessions.page', limit);
    checkLimit('sessions.page offset', offset);
    const counted = this.#run(() => this.#count.get(agent, sessionId)) as
      | { message_count: number }
      | undefined;
    const rows = this.#run(() => this.#page.all(agent, sessionId, limit, offset)) as { message: string }[];
    return {
      total: Number(counted?.message_count ?? 0),
      messages: rows.map((row) => JSON.parse(row.message) as Message),
    };
  }

  async search({ owner, userId, agent, terms, exceptSession, limit }: SessionSearch): Promise<SessionHit[]> {
    checkLimit('sessions.search', limit);
    if (terms.length === 0 || limit === 0) return [];
    const counts = new Map(
      (this.#run(() => this.#termCounts.all(JSON.stringify(terms))) as { term: string; doc: number }[]).map(
        (row) => [row.term, Number(row.doc)],
      ),
    );
    // Each term a quoted string: FTS5 reads nothing inside as syntax (terms hold no quotes).
    const match = selective(terms, (term) => counts.get(term) ?? 0)
      .map((term) => `"${term}"`)
      .join(' OR ');
    const rows = this.#run(() =>
      this.#search.all(match, owner, userId, agent, exceptSession ?? '\u0001', limit),
    ) as unknown as HitRow[];
    return rows.map(hitFromRow);
  }

  async insertMany(sessions: readonly StoredSession[]): Promise<number> {
    if (sessions.length === 0) return 0;
    return this.#run(() =>
      immediately(this.#db, () => {
        let written = 0;
        for (const session of sessions) {
          const { agent, sessionId, owner, createdAt, lastActive, messages } = session;
          const made = this.#insertSession.run(
            agent,
            sessionId,
            owner,
            createdAt,
            lastActive,
            messages.length,
          );
          // A session already there (another process imported it first) is left as it is.
          if (Number(made.changes) === 0) continue;
          for (const [seq, message] of messages.entries())
            this.#insertMessage.run(agent, sessionId, seq, JSON.stringify(message), null);
          written++;
        }
        return written;
      }),
    );
  }

  async listOwned(owner: string, limit: number, agent?: string): Promise<SessionInfo[]> {
    checkLimit('sessions.listOwned', limit);
    const rows = this.#run(() =>
      agent === undefined ? this.#owned.all(owner, limit) : this.#ownedOfAgent.all(owner, agent, limit),
    ) as unknown as SessionRow[];
    return rows.map(sessionFromRow);
  }

  async deleteIdleBefore(time: number, limit: number): Promise<number> {
    checkLimit('sessions.deleteIdleBefore', limit);
    return this.#deleteChosen(() => this.#idle.all(time, limit) as unknown as Key[]).sessions;
  }

  async deleteOwned(owner: string, limit: number): Promise<SessionsDeleted> {
    checkLimit('sessions.deleteOwned', limit);
    return this.#deleteChosen(() => this.#ownedKeys.all(owner, limit) as unknown as Key[]);
  }

  /** Deletes the sessions `choose` picks, chosen and deleted in one transaction. */
  #deleteChosen(choose: () => Key[]): SessionsDeleted {
    return this.#run(() =>
      immediately(this.#db, () => {
        const deleted = { sessions: 0, messages: 0 };
        for (const { agent, session_id } of choose()) {
          deleted.messages += Number(this.#deleteMessages.run(agent, session_id).changes);
          deleted.sessions += Number(this.#deleteSession.run(agent, session_id).changes);
        }
        return deleted;
      }),
    );
  }

  #run<T>(operation: () => T): T {
    return onSqlite(this.#label, operation);
  }
}
