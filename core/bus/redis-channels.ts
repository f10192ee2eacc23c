import type { Redis } from 'ioredis';
import type { StoreValue } from '../store/store.ts';
import { quiet } from './redis-connect.ts';

type Handler = (message: StoreValue) => void;

interface Channel {
  handlers: Set<Handler>;
  /** Settles once Redis confirmed the SUBSCRIBE: a subscriber hears what is published after that. */
  subscribed: Promise<unknown>;
}

/**
 * The subscriptions of a bus, on one connection of their own (a subscribed connection is given to
 * pub/sub). A Redis channel stays subscribed while it has a handler; ioredis subscribes again
 * after a reconnect.
 */
export class RedisChannels {
  readonly #main: Redis;
  readonly #channels = new Map<string, Channel>();
  #subscriber: Redis | undefined;

  constructor(main: Redis) {
    this.#main = main;
  }

  async subscribe(key: string, handler: Handler): Promise<() => Promise<void>> {
    const subscriber = this.#connection();
    let channel = this.#channels.get(key);
    if (!channel) {
      channel = { handlers: new Set(), subscribed: subscriber.subscribe(key) };
      this.#channels.set(key, channel);
    }
    const own: Handler = (message) => handler(message);
    channel.handlers.add(own);
    const unsubscribe = async () => {
      if (!channel.handlers.delete(own) || channel.handlers.size > 0) return;
      // Commands run in order on the connection: a later SUBSCRIBE of this key still wins.
      this.#channels.delete(key);
      await subscriber.unsubscribe(key);
    };
    try {
      await channel.subscribed;
    } catch (error) {
      await unsubscribe().catch(() => undefined);
      throw error;
    }
    return unsubscribe;
  }

  close(): void {
    this.#channels.clear();
    this.#subscriber?.disconnect();
  }

  #connection(): Redis {
    if (this.#subscriber) return this.#subscriber;
    // Not auto-pipelined as the main connection is: a subscriber sends (UN)SUBSCRIBEs only.
    const subscriber = quiet(this.#main.duplicate({ enableAutoPipelining: false }));
    subscriber.on('message', (key: string, text: string) => this.#deliver(key, text));
    this.#subscriber = subscriber;
    return subscriber;
  }

  #deliver(key: string, text: string): void {
    for (const handler of [...(this.#channels.get(key)?.handlers ?? [])]) {
      try {
        // Parsed for each handler, as the local bus copies: one cannot change what another gets.
        handler(JSON.parse(text));
      } catch {
        // A foreign message or a throwing handler must not stop the others, nor the connection.
      }
    }
  }
}
