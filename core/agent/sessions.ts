import { randomBytes } from 'node:crypto';
import { collection } from '../store/collection.ts';
import type { Store } from '../store/store.ts';
import type { Message } from './messages.ts';
import { SESSION_RETENTION_SCHEMA, type SessionRetention, sessionActivity } from './session-retention.ts';

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
 * Conversation history per agent and session id: one store entry per message, keyed in order,
 * so each completed step is appended as it finishes and a crash loses none of them. Each session
 * is also filed by the minute it was last written (`hubos:sessions:activity`), for retention.
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
    const { historyLimit } = this.#config;
    // One statement: only this session's keys (the delimiter keeps session "a" from reading those
    // of session "a/b"), and with a historyLimit only the last ones, counted by the store.
    const entries = await this.#messages(agent).entries(`${sessionId}/`, {
      delimiter: '/',
      ...(historyLimit !== undefined ? { limit: historyLimit, fromEnd: true } : {}),
    });
    return trimToTurnStart(entries.map((entry) => entry.value));
  }

  async append(agent: string, sessionId: string, messages: readonly Message[]): Promise<void> {
    if (this.#config.persist === false || messages.length === 0) return;
    const stored = this.#messages(agent);
    for (const message of messages) await stored.set(`${sessionId}/${nextKey()}`, message);
    // Filed by when it was last written, so retention finds idle sessions without reading them all.
    await sessionActivity(this.#store).touch(`${agent}/${sessionId}`);
  }

  #messages(agent: string) {
    return collection<Message>(this.#store, namespace(agent));
  }
}

// Keys sort in append order and are made without reading the store, so concurrent appends to one
// session (two runs, or two processes on one SQLite file) never overwrite each other: a time kept
// monotonic in this process, then a counter, then a tag unique to the process.
let lastTime = 0;
let counter = 0;
const processTag = randomBytes(4).toString('hex');

function nextKey(): string {
  lastTime = Math.max(lastTime, Date.now());
  return `${String(lastTime).padStart(15, '0')}-${String(counter++).padStart(12, '0')}-${processTag}`;
}

function namespace(agent: string): string {
  return `sessions:${agent}`;
}

// A history cut by `historyLimit` must not start with tool results whose call was cut away.
function trimToTurnStart(messages: Message[]): Message[] {
  const first = messages.findIndex((message) => message.role === 'user');
  // No user message in the window: what is left is the tail of a turn, unusable on its own.
  return first === -1 ? [] : messages.slice(first);
}
