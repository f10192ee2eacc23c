import type { Store, StoreValue } from '../../../core/index.ts';

/** What HubOS keeps to stay signed in to one server. */
export type OAuthRecord = 'tokens' | 'client' | 'verifier' | 'redirect';

/**
 * One server's OAuth state in the kernel's Store, in its own namespace (`mcp-oauth:<server>`).
 * Each value is kept with the server URL it was obtained for and read back only for that URL: a
 * config that points the server elsewhere never sends the old server's tokens to the new one.
 */
export class OAuthStore {
  readonly #store: Store;
  readonly #namespace: string;
  readonly #resource: string;

  constructor(store: Store, server: string, resource: string) {
    this.#store = store;
    this.#namespace = `mcp-oauth:${server}`;
    this.#resource = resource;
  }

  async get<T>(record: OAuthRecord): Promise<T | undefined> {
    const kept = await this.#store.get<{ resource: string; value: StoreValue }>(this.#namespace, record);
    if (!kept || kept.resource !== this.#resource) return undefined;
    return kept.value as T;
  }

  async set(record: OAuthRecord, value: unknown): Promise<void> {
    // Through JSON: values the SDK hands over may hold `undefined` fields, which a store refuses.
    const json = JSON.parse(JSON.stringify(value)) as StoreValue;
    await this.#store.set(this.#namespace, record, { resource: this.#resource, value: json });
  }

  async delete(record: OAuthRecord): Promise<void> {
    await this.#store.delete(this.#namespace, record);
  }
}
