import { randomUUID } from 'node:crypto';
import type { Message } from '../agent/messages.ts';
import type { PostgresQuery } from '../runs/postgres-run-table.ts';
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

/**
 * The sessions tables on PostgreSQL, every write one statement. An append upserts the session's
 * row, adding its messages to the count, and numbers them from what that returns: the row lock it
 * takes holds a concurrent append of the session until this one commits, so ranges never overlap.
 * The store runs a statement again when the connection drops: the append's id, on its first
 * message, makes the second run find it done and write nothing.
 */
export class PostgresSessionTable implements SessionTable {
  readonly #query: PostgresQuery;
  readonly #sessions: string;
  readonly #messages: string;
  readonly #schema: string;
  /** How many messages hold each of the most common words, by the planner's statistics; refreshed now and then. */
  #common: { counts: Map<string, number>; until: number } | undefined;

  constructor(query: PostgresQuery, schema: string) {
    this.#query = query;
    this.#schema = schema;
    const quoted = `"${schema.replaceAll('"', '""')}"`;
    this.#sessions = `${quoted}.hubos_sessions`;
    this.#messages = `${quoted}.hubos_session_messages`;
  }

  async append(
    agent: string,
    sessionId: string,
    owner: string,
    messages: readonly Message[],
    { at = Date.now(), appendId = randomUUID(), userId = '' }: AppendOptions = {},
  ): Promise<void> {
    if (messages.length === 0) return;
    // A session already there is only counted on when this append is not in it yet.
    await this.#query(
      `WITH reserved AS (
         INSERT INTO ${this.#sessions} AS s (${SESSION_COLUMNS}, user_id) VALUES ($1, $2, $3, $4, $4, $5, $8)
         ON CONFLICT (agent, session_id) DO UPDATE SET message_count = s.message_count + excluded.message_count,
           last_active = greatest(s.last_active, excluded.last_active)
         WHERE NOT EXISTS (SELECT 1 FROM ${this.#messages}
           WHERE agent = $1 AND session_id = $2 AND append_id = $7::text)
         RETURNING message_count)
       INSERT INTO ${this.#messages} (agent, session_id, seq, message, append_id)
       SELECT $1, $2, reserved.message_count - $5 + m.n - 1, m.message, CASE WHEN m.n = 1 THEN $7::text END
       FROM reserved, unnest($6::text[]) WITH ORDINALITY AS m(message, n)`,
      [
        agent,
        sessionId,
        owner,
        at,
        messages.length,
        messages.map((message) => JSON.stringify(message)),
        appendId,
        userId,
      ],
    );
  }

  async search({ owner, userId, agent, terms, exceptSession, limit }: SessionSearch): Promise<SessionHit[]> {
    checkLimit('sessions.search', limit);
    if (terms.length === 0 || limit === 0) return [];
    const counts = await this.#commonWords();
    const words = selective(terms, (term) => counts.get(term) ?? 0);
    // Terms are letters and digits only (searchTerms): joined by |, nothing in them is tsquery syntax.
    const { rows } = await this.#query<HitRow>(
      `SELECT session_id, seq, message, last_active FROM (
         SELECT m.session_id, m.seq, m.message, s.last_active, ts_rank(m.search, q) AS rank
         FROM ${this.#messages} m
         JOIN ${this.#sessions} s ON s.agent = m.agent AND s.session_id = m.session_id,
           to_tsquery('simple', $1) q
         WHERE m.search @@ q AND s.owner = $2 AND s.user_id = $3 AND s.agent = $4 AND s.session_id <> $5
         LIMIT ${MAX_CANDIDATES}) found
       ORDER BY rank DESC, session_id, seq LIMIT $6`,
      [words.join(' | '), owner, userId, agent, exceptSession ?? '\u0001', limit],
    );
    return rows.map(hitFromRow);
  }

  /**
   * The words in most messages, with about how many: the statistics ANALYZE (autovacuum) keeps of
   * the search column, read at most once a minute. None before the first ANALYZE: every word is
   * searched by, the candidates capped.
   */
  async #commonWords(): Promise<Map<string, number>> {
    if (this.#common && this.#common.until > Date.now()) return this.#common.counts;
    const { rows } = await this.#query<{
      elems: string[] | null;
      freqs: number[] | null;
      total: number | null;
    }>(
      `SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs,
         (SELECT c.reltuples FROM pg_class c WHERE c.oid = to_regclass($2)) AS total
       FROM pg_stats s
       WHERE s.schemaname = $1 AND s.tablename = 'hubos_session_messages' AND s.attname = 'search'`,
      [this.#schema, this.#messages],
    );
    const counts = new Map<string, number>();
    const { elems, freqs, total } = rows[0] ?? {};
    if (elems && freqs && total && total > 0)
      for (const [i, elem] of elems.entries()) counts.set(elem, Math.round((freqs[i] ?? 0) * total));
    this.#common = { counts, until: Date.now() + 60_000 };
    return counts;
  }

  async load(agent: string, sessionId: string, limit?: number): Promise<Message[]> {
    if (limit !== undefined) checkLimit('sessions.load', limit);
    // The last ones walk the primary key backwards; either way one statement.
    const { rows } = await this.#query<{ message: string }>(
      limit === undefined
        ? `SELECT message FROM ${this.#messages} WHERE agent = $1 AND session_id = $2 ORDER BY seq`
        : `SELECT message FROM (SELECT seq, message FROM ${this.#messages}
             WHERE agent = $1 AND session_id = $2 ORDER BY seq DESC LIMIT $3) last ORDER BY seq`,
      limit === undefined ? [agent, sessionId] : [agent, sessionId, limit],
    );
    return rows.map((row) => JSON.parse(row.message) as Message);
  }

  async page(agent: string, sessionId: string, offset: number, limit: number): Promise<SessionPage> {
    checkLimit('sessions.page', limit);
    checkLimit('sessions.page offset', offset);
    const [counted, page] = await Promise.all([
      this.#query<{ message_count: string | number }>(
        `SELECT message_count FROM ${this.#sessions} WHERE agent = $1 AND session_id = $2`,
        [agent, sessionId],
      ),
      this.#query<{ message: string }>(
        `SELECT message FROM ${this.#messages} WHERE agent = $1 AND session_id = $2
           ORDER BY seq LIMIT $3 OFFSET $4`,
        [agent, sessionId, limit, offset],
      ),
    ]);
    return {
      total: Number(counted.rows[0]?.message_count ?? 0),
      messages: page.rows.map((row) => JSON.parse(row.message) as Message),
    };
  }

  async insertMany(sessions: readonly StoredSession[]): Promise<number> {
    if (sessions.length === 0) return 0;
    // One statement: the sessions not there yet are written, then the messages of those only.
    const messages = sessions.flatMap((session) =>
      session.messages.map((message, seq) => [
        session.agent,
        session.sessionId,
        seq,
        JSON.stringify(message),
      ]),
    );
    const column = <T>(rows: readonly T[][], c: number) => rows.map((row) => row[c]);
    const rows = sessions.map((s) => [
      s.agent,
      s.sessionId,
      s.owner,
      s.createdAt,
      s.lastActive,
      s.messages.length,
    ]);
    const { rows: made } = await this.#query<{ made: string }>(
      `WITH made AS (
         INSERT INTO ${this.#sessions} (${SESSION_COLUMNS})
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::integer[])
         ON CONFLICT (agent, session_id) DO NOTHING
         RETURNING agent, session_id),
       written AS (
         INSERT INTO ${this.#messages} (agent, session_id, seq, message)
         SELECT m.agent, m.session_id, m.seq, m.message
         FROM unnest($7::text[], $8::text[], $9::integer[], $10::text[]) AS m(agent, session_id, seq, message)
         JOIN made ON made.agent = m.agent COLLATE "C" AND made.session_id = m.session_id COLLATE "C"
         RETURNING 1)
       SELECT count(*) AS made FROM made`,
      [...[0, 1, 2, 3, 4, 5].map((c) => column(rows, c)), ...[0, 1, 2, 3].map((c) => column(messages, c))],
    );
    return Number(made[0]?.made ?? 0);
  }

  async listOwned(owner: string, limit: number, agent?: string): Promise<SessionInfo[]> {
    checkLimit('sessions.listOwned', limit);
    const { rows } = await this.#query<SessionRow>(
      agent === undefined
        ? `SELECT ${SESSION_COLUMNS} FROM ${this.#sessions} WHERE owner = $1 ORDER BY agent, session_id LIMIT $2`
        : `SELECT ${SESSION_COLUMNS} FROM ${this.#sessions} WHERE owner = $1 AND agent = $3 ORDER BY session_id LIMIT $2`,
      agent === undefined ? [owner, limit] : [owner, limit, agent],
    );
    return rows.map(sessionFromRow);
  }

  async deleteIdleBefore(time: number, limit: number): Promise<number> {
    checkLimit('sessions.deleteIdleBefore', limit);
    // Asked again of each locked row: a session written to meanwhile is no longer idle, and stays.
    return (await this.#deleteWhere('last_active < $1', 'ORDER BY last_active', [time, limit])).sessions;
  }

  async deleteOwned(owner: string, limit: number): Promise<SessionsDeleted> {
    checkLimit('sessions.deleteOwned', limit);
    return this.#deleteWhere('owner = $1', '', [owner, limit]);
  }

  /** Deletes up to `$2` sessions matching `where` and their messages, in one statement. */
  async #deleteWhere(where: string, order: string, params: unknown[]): Promise<SessionsDeleted> {
    const { rows } = await this.#query<{ sessions: string; messages: string }>(
      `WITH gone AS (
         DELETE FROM ${this.#sessions} WHERE ${where} AND (agent, session_id) IN (
           SELECT agent, session_id FROM ${this.#sessions} WHERE ${where} ${order} LIMIT $2
           FOR UPDATE SKIP LOCKED)
         RETURNING agent, session_id),
       messages AS (
         DELETE FROM ${this.#messages} AS m USING gone
         WHERE m.agent = gone.agent AND m.session_id = gone.session_id
         RETURNING 1)
       SELECT (SELECT count(*) FROM gone) AS sessions, (SELECT count(*) FROM messages) AS messages`,
      params,
    );
    return { sessions: Number(rows[0]?.sessions ?? 0), messages: Number(rows[0]?.messages ?? 0) };
  }
}
