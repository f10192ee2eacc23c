import type { Message } from '../agent/messages.ts';

/** A session as the table lists it (its messages left out). */
export interface SessionInfo {
  agent: string;
  sessionId: string;
  /** Whose it is: a principal id (`local` for the keyless caller's). */
  owner: string;
  /** When its first message was written (ms since the epoch). */
  createdAt: number;
  /** When its last message was written (ms since the epoch). */
  lastActive: number;
  messageCount: number;
}

/** A whole session with its messages in order: what the import of key/value sessions writes. */
export interface StoredSession {
  agent: string;
  sessionId: string;
  owner: string;
  createdAt: number;
  lastActive: number;
  messages: readonly Message[];
}

/** When an append was made, its id, and the end user a new session is for. */
export interface AppendOptions {
  at?: number;
  appendId?: string;
  /** Which end user of the owner a session made by this append is for (default ''; a session keeps its first). */
  userId?: string;
}

/** What `search` looks for, and in whose sessions: always one owner's, one end user's, one agent's. */
export interface SessionSearch {
  owner: string;
  /** The end user's id ('' for sessions made without one). */
  userId: string;
  agent: string;
  /** Words (see `searchTerms`): a message matches when it has any of them, best matches first. */
  terms: readonly string[];
  /** Left out (the conversation going on, whose messages the model has already). */
  exceptSession?: string | undefined;
  limit: number;
}

/** One message a search found, with its session's id and when that session was last written. */
export interface SessionHit {
  sessionId: string;
  seq: number;
  role: 'user' | 'assistant';
  text: string;
  lastActive: number;
}

/** A page of a session's messages and how many it holds. */
export interface SessionPage {
  total: number;
  messages: Message[];
}

/** What deleting an owner's sessions removed. */
export interface SessionsDeleted {
  sessions: number;
  messages: number;
}

/**
 * Conversation sessions and their messages, in tables of their own beside the runs (SQLite or
 * PostgreSQL). An append reserves its messages' numbers on the session's row in the same
 * transaction (or statement) that writes them, so appends by concurrent writers (two runs of a
 * session, two processes on a file, two instances on PostgreSQL) keep every message, in order.
 */
export interface SessionTable {
  /**
   * Appends `messages` to the session, made (as `owner`'s) if it is new. `at` is when (ms, default
   * now); `appendId` names the append (default a new one): an append of an id already there is
   * not made again.
   */
  append(
    agent: string,
    sessionId: string,
    owner: string,
    messages: readonly Message[],
    options?: AppendOptions,
  ): Promise<void>;
  /** A session's messages in order, in one query: only the last `limit` ones when given. */
  load(agent: string, sessionId: string, limit?: number): Promise<Message[]>;
  /**
   * A page of a session's messages, `limit` from `offset` (0-based) in order, and how many it holds:
   * two index reads, whatever the session's length.
   */
  page(agent: string, sessionId: string, offset: number, limit: number): Promise<SessionPage>;
  /** Writes the sessions whose rows do not exist, each whole, in one commit; how many it wrote. */
  insertMany(sessions: readonly StoredSession[]): Promise<number>;
  /** An owner's sessions (of one agent, or of all), by agent then id: at most `limit`. */
  listOwned(owner: string, limit: number, agent?: string): Promise<SessionInfo[]>;
  /** The owner's end user's messages with this agent that hold any of the terms, best first (one query). */
  search(query: SessionSearch): Promise<SessionHit[]>;
  /** Deletes at most `limit` sessions last written before `time` (ms), oldest first; how many went. */
  deleteIdleBefore(time: number, limit: number): Promise<number>;
  /** Deletes at most `limit` sessions of `owner`, whatever their agent, with their messages. */
  deleteOwned(owner: string, limit: number): Promise<SessionsDeleted>;
}

/** A session row as both dialects return it (PostgreSQL's bigint comes back as a string). */
export interface SessionRow {
  agent: string;
  session_id: string;
  owner: string;
  created_at: number | string;
  last_active: number | string;
  message_count: number | string;
}

export const SESSION_COLUMNS = 'agent, session_id, owner, created_at, last_active, message_count';

export const sessionFromRow = (row: SessionRow): SessionInfo => ({
  agent: row.agent,
  sessionId: row.session_id,
  owner: row.owner,
  createdAt: Number(row.created_at),
  lastActive: Number(row.last_active),
  messageCount: Number(row.message_count),
});

/** The row of a hit as both dialects return it. */
export interface HitRow {
  session_id: string;
  seq: number | string;
  message: string;
  last_active: number | string;
}

export const hitFromRow = (row: HitRow): SessionHit => {
  const message = JSON.parse(row.message) as { role: 'user' | 'assistant'; content: string };
  return {
    sessionId: row.session_id,
    seq: Number(row.seq),
    role: message.role,
    text: message.content,
    lastActive: Number(row.last_active),
  };
};

/** At most this many words of a query are looked for; each at most `MAX_TERM_LENGTH` characters. */
export const MAX_SEARCH_TERMS = 16;
const MAX_TERM_LENGTH = 64;

/**
 * The words of a free-text query as both stores' full-text search tokenize text (letters and
 * digits, lowercased, diacritics kept: both fold them the same way on their side): only these
 * reach a query, so no query syntax (FTS5's, tsquery's) can be injected. Duplicates go; at most
 * `MAX_SEARCH_TERMS`, each cut at 64 characters.
 */
export function searchTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.map((word) => word.slice(0, MAX_TERM_LENGTH)))].slice(0, MAX_SEARCH_TERMS);
}

/**
 * A word in more messages than this (of every owner) is too common to search by: its matches
 * would all have to be ranked. Such words are left out of a query, unless all its words are:
 * then the rarest is kept, and only the first `MAX_CANDIDATES` matches (1,000) are ranked.
 */
export const COMMON_TERM_MESSAGES = 1_000;
export const MAX_CANDIDATES = 1_000;

/** The query's words worth searching by, given in how many messages each is (unknown: rare). */
export function selective(terms: readonly string[], messagesWith: (term: string) => number): string[] {
  const counted = terms.map((term) => ({ term, count: messagesWith(term) }));
  const rare = counted.filter((entry) => entry.count <= COMMON_TERM_MESSAGES);
  if (rare.length > 0) return rare.map((entry) => entry.term);
  const rarest = counted.reduce((a, b) => (b.count < a.count ? b : a), counted[0]!);
  return rarest ? [rarest.term] : [];
}

/** Refuses a limit that is not a count, so no query reads everything (or nothing) by mistake. */
export function checkLimit(what: string, limit: number): void {
  if (!(Number.isSafeInteger(limit) && limit >= 0))
    throw new RangeError(`${what}: limit must be an integer, 0 or more (got ${String(limit)})`);
}
