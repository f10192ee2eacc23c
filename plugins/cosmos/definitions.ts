import { randomUUID } from 'node:crypto';
import { HubosError, type Store, type StoreValue } from '../../core/index.ts';
import { agentExists, cosmosFull } from './errors.ts';
import { type Held, withStoreLock } from './store-lock.ts';
import type { CosmosOverrides } from './types.ts';

/** The store namespace persisted definitions live in, one key per agent id. */
export const COSMOS_NAMESPACE = 'cosmos';

/** Creates under way, one key per agent id: kept apart, so COSMOS_NAMESPACE holds built agents only. */
const CLAIMS_NAMESPACE = 'cosmos:claims';
/** Where the create lock lives. */
const LOCK_NAMESPACE = 'cosmos:locks';
const LOCK_KEY = 'create';
/** Held for a few store calls; a holder that died is taken over after ttlMs. */
const LOCK = { ttlMs: 10_000, waitMs: 25_000 };

/** Longest a create may take from claim to commit: an older claim (its instance died) frees its slot. */
export const CLAIM_TTL_MS = 120_000;

/** A persisted definition: enough to build the agent again. */
export interface Definition {
  agentId: string;
  templateId: string;
  overrides: CosmosOverrides;
  createdAt: number;
  /** Absent for a shared agent, and in definitions stored before owners were kept. */
  owner?: string;
}

/** The slot a create holds while its agent is built. */
export interface Claim {
  agentId: string;
  holder: string;
  expiresAt: number;
}

/** What the create lock keeps between holders: how many definitions are stored. */
interface Tally {
  definitions: number;
}

/**
 * The stored definitions as the slots of `maxAgents`, shared by every instance on the store. A
 * create claims a slot (live claims plus definitions below max: store a claim) and commits it once
 * the agent is built (the definition replaces the claim), each under a lock in the store; removing
 * a definition takes the lock too, so a count never races a change. The lock keeps the number of
 * definitions, so a create need not read every definition; they are counted again from the store when
 * unknown (a holder died mid-change) or when it says full. A claim whose instance died expires.
 */
export class Slots {
  readonly #store: () => Store;
  /** This process's lock work, one at a time: only one of its creates contends for the store lock. */
  #queue: Promise<unknown> = Promise.resolve();
  /** Template of each stored definition, read once: a definition does not change while stored. */
  #templates = new Map<string, string>();

  constructor(store: () => Store) {
    this.#store = store;
  }

  /**
   * Claims a slot for `agentId` if fewer than `max` are held: live claims, and the stored
   * definitions whose template `counts`. Throws `AGENT_EXISTS` or `COSMOS_FULL` otherwise.
   */
  claim(agentId: string, max: number, counts: (templateId: string) => boolean): Promise<Claim> {
    const claim: Claim = { agentId, holder: randomUUID(), expiresAt: Date.now() + CLAIM_TTL_MS };
    return this.#locked(async (store, held) => {
      let claims = 0;
      for (const key of await store.list(CLAIMS_NAMESPACE)) {
        const other = (await store.get(CLAIMS_NAMESPACE, key)) as unknown as Claim | undefined;
        if (!other || !(other.expiresAt > Date.now())) {
          await store.delete(CLAIMS_NAMESPACE, key);
          continue;
        }
        if (key === agentId) throw agentExists(agentId);
        claims++;
      }
      if ((await store.get(COSMOS_NAMESPACE, agentId)) !== undefined) throw agentExists(agentId);
      let total = (held.data as Tally | undefined)?.definitions;
      let counted = total;
      // Unknown, or full by the tally: counted from the store, without definitions that do not count.
      if (total === undefined || total + claims >= max) {
        ({ total, counted } = await this.#count(store, counts));
        held.data = { definitions: total };
      }
      if (counted! + claims >= max) throw cosmosFull(max);
      await store.set(CLAIMS_NAMESPACE, agentId, claim as unknown as StoreValue);
      return claim;
    });
  }

  /** Stores the definition in place of its claim; throws when the claim expired (its slot may be another's). */
  commit(claim: Claim, definition: Definition): Promise<void> {
    return this.#locked(async (store, held) => {
      if (!(claim.expiresAt > Date.now() && (await this.#holds(store, claim))))
        throw new HubosError(
          'STORE_FAILED',
          `cosmos: creating agent "${claim.agentId}" took longer than ${CLAIM_TTL_MS} ms, so its slot was given up`,
        );
      const tally = held.data as Tally | undefined;
      // Unknown until both writes are done: a failure between them leaves it to be counted again.
      held.data = undefined;
      await store.set(COSMOS_NAMESPACE, claim.agentId, definition as unknown as StoreValue);
      await store.delete(CLAIMS_NAMESPACE, claim.agentId);
      this.#templates.set(claim.agentId, definition.templateId);
      if (tally) held.data = { definitions: tally.definitions + 1 };
    });
  }

  /** Gives back the slot of a create that failed. */
  release(claim: Claim): Promise<void> {
    return this.#locked(async (store) => {
      if (await this.#holds(store, claim)) await store.delete(CLAIMS_NAMESPACE, claim.agentId);
    });
  }

  /** Removes the definition of the agent created at `createdAt`: not a newer one of the same id. */
  remove(id: string, createdAt: number): Promise<void> {
    return this.#locked(async (store, held) => {
      const stored = (await store.get(COSMOS_NAMESPACE, id)) as unknown as Definition | undefined;
      if (stored?.createdAt !== createdAt) return;
      const tally = held.data as Tally | undefined;
      held.data = undefined;
      await store.delete(COSMOS_NAMESPACE, id);
      this.#templates.delete(id);
      if (tally) held.data = { definitions: tally.definitions - 1 };
    });
  }

  async #holds(store: Store, claim: Claim): Promise<boolean> {
    const stored = await store.get(CLAIMS_NAMESPACE, claim.agentId);
    return stored !== undefined && JSON.stringify(stored) === JSON.stringify(claim);
  }

  /** The stored definitions, and those whose template `counts`: only those not seen before are read. */
  async #count(store: Store, counts: (templateId: string) => boolean) {
    const templates = new Map<string, string>();
    for (const id of await store.list(COSMOS_NAMESPACE)) {
      let templateId = this.#templates.get(id);
      if (templateId === undefined) {
        const stored = (await store.get(COSMOS_NAMESPACE, id)) as { templateId?: unknown } | undefined;
        templateId = typeof stored?.templateId === 'string' ? stored.templateId : '';
      }
      templates.set(id, templateId);
    }
    this.#templates = templates;
    let counted = 0;
    for (const templateId of templates.values()) if (counts(templateId)) counted++;
    return { total: templates.size, counted };
  }

  #locked<T>(work: (store: Store, held: Held) => Promise<T>): Promise<T> {
    const store = this.#store();
    const run = this.#queue.then(() =>
      withStoreLock(store, LOCK_NAMESPACE, LOCK_KEY, LOCK, (held) => work(store, held)),
    );
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
