import type { Store, StoreValue } from '../store/store.ts';
import type { Message } from './messages.ts';

export interface SessionsConfig {
  /** Keep conversations in the store (default true). */
  persist?: boolean;
  /** Only the last N stored messages are sent to the model (default: all). */
  historyLimit?: number;
}

export const SESSIONS_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    persist: { type: 'boolean', default: true },
    historyLimit: { type: 'integer', minimum: 1 },
  },
  additionalProperties: false,
} as const;

/**
 * Conversation history per agent and session id: one store entry per message, keyed in order,
 * so each completed step is appended as it finishes and a crash loses none of them.
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
    let keys = await this.#store.list(namespace(agent), `${sessionId}/`);
    if (this.#config.historyLimit !== undefined) keys = keys.slice(-this.#config.historyLimit);
    const messages = await Promise.all(keys.map((key) => this.#store.get(namespace(agent), key)));
    return trimToTurnStart(messages.filter((m) => m !== undefined) as unknown as Message[]);
  }

  async append(agent: string, sessionId: string, messages: readonly Message[]): Promise<void> {
    if (this.#config.persist === false || messages.length === 0) return;
    const keys = await this.#store.list(namespace(agent), `${sessionId}/`);
    let next = keys.length === 0 ? 0 : Number(keys.at(-1)!.slice(sessionId.length + 1)) + 1;
    for (const message of messages) {
      await this.#store.set(
        namespace(agent),
        `${sessionId}/${String(next++).padStart(10, '0')}`,
        message as unknown as StoreValue,
      );
    }
  }
}

function namespace(agent: string): string {
  return `sessions:${agent}`;
}

// A history cut by `historyLimit` must not start with tool results whose call was cut away.
function trimToTurnStart(messages: Message[]): Message[] {
  const first = messages.findIndex((message) => message.role === 'user');
  return first <= 0 ? messages : messages.slice(first);
}
