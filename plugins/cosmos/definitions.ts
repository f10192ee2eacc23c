import { randomUUID } from 'node:crypto';
import { collection, HubosError, type Store } from '../../core/index.ts';
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

/** The overrides a definition keeps: a persisted agent's model is a reference string, never an object. */
export type StoredOverrides = Omit<CosmosOverrides, 'model'> & { model?: string };

/** `overrides` as a definition keeps them; AGENT_INVALID when the model is an object, which no store keeps. */
export function storedOverrides(agentId: string, overrides: CosmosOverrides): StoredOverrides {
  const { model, ...rest } = overrides;
  if (model === undefined) return rest;
  if (typeof model !== 'string')
    throw new HubosError(
      'AGENT_INVALID',
      `cosmos: agent "${agentId}" is persisted, so its model must be a reference string, not an object`,
    );
  return { ...rest, model };
}

/** A persisted definition: enough to build the agent again. */
export interface Definition {
  agentId: string;
  templateId: string;
  overrides: StoredOverrides;
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

/** The stored definitions, by agent id. */
export const storedDefinitions = (store: Store) => collection<Definition>(store, COSMOS_NAMESPACE);
const claimsIn = (store: Store) => collection<Claim>(store, CLAIMS_NAMESPACE);

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
      const stored = claimsIn(store);
      for (const key of await stored.keys()) {
        const other = await stored.get(key);
        if (!other || !(other.expiresAt > Date.now())) {
          await stored.delete(key);
          continue;
        }
        if (key === agentId) throw agentExists(agentId);
        claims++;
      }
      if ((await storedDefinitions(store).get(agentId)) !== undefined) throw agentExists(agentId);
      let total = held.data?.definitions;
      let counted = total;
      // Unknown, or full by the tally: counted from the store, without definitions that do not count.
      if (total === undefined || total + claims >= max) {
        ({ total, counted } = await this.#count(store, counts));
        held.data = { definitions: total };
      }
      if (counted! + claims >= max) throw cosmosFull(max);
      await stored.set(agentId, claim);
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
      const tally = held.data;
      // Unknown until both writes are done: a failure between them leaves it to be counted again.
      held.data = undefined;
      await storedDefinitions(store).set(claim.agentId, definition);
      await claimsIn(store).delete(claim.agentId);
      this.#templates.set(claim.agentId, definition.templateId);
      if (tally) held.data = { definitions: tally.definitions + 1 };
    });
  }

  /** Gives back the slot of a create that failed. */
  release(claim: Claim): Promise<void> {
    return this.#locked(async (store) => {
      if (await this.#holds(store, claim)) await claimsIn(store).delete(claim.agentId);
    });
  }

  /** Removes the definition of the agent created at `createdAt`: not a newer one of the same id. */
  remove(id: string, createdAt: number): Promise<void> {
    return this.#locked(async (store, held) => {
      const definitions = storedDefinitions(store);
      const stored = await definitions.get(id);
      if (stored?.createdAt !== createdAt) return;
      const tally = held.data;
      held.data = undefined;
      await definitions.delete(id);
      this.#templates.delete(id);
      if (tally) held.data = { definitions: tally.definitions - 1 };
    });
  }

  async #holds(store: Store, claim: Claim): Promise<boolean> {
    const stored = await claimsIn(store).get(claim.agentId);
    return stored !== undefined && JSON.stringify(stored) === JSON.stringify(claim);
  }

  /** The stored definitions, and those whose template `counts`: only those not seen before are read. */
  async #count(store: Store, counts: (templateId: string) => boolean) {
    const templates = new Map<string, string>();
    const definitions = storedDefinitions(store);
    for (const id of await definitions.keys()) {
      let templateId = this.#templates.get(id);
      if (templateId === undefined) {
        const stored = await definitions.get(id);
        // Written by another version, perhaps: a definition without a template counts for none.
        templateId = typeof stored?.templateId === 'string' ? stored.templateId : '';
      }
      templates.set(id, templateId);
    }
    this.#templates = templates;
    let counted = 0;
    for (const templateId of templates.values()) if (counts(templateId)) counted++;
    return { total: templates.size, counted };
  }

  #locked<T>(work: (store: Store, held: Held<Tally>) => Promise<T>): Promise<T> {
    const store = this.#store();
    const run = this.#queue.then(() =>
      withStoreLock<T, Tally>(store, LOCK_NAMESPACE, LOCK_KEY, LOCK, (held) => work(store, held)),
    );
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
