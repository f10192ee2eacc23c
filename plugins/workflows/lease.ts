import type { Instance, Store, StoreValue } from '../../core/index.ts';

/** Who runs each run now, key the run id: `{ holder, expiresAt }`, renewed while it runs. */
export const WORKFLOW_LEASES_NAMESPACE = 'workflow-leases';

export interface LeaseValue {
  /** The instance id (`kernel.instance.id`) that holds it. */
  holder: string;
  /** ms since the epoch; past it, the holder has stopped renewing it. */
  expiresAt: number;
}

/** Instances whose heartbeat this plugin has started (or is starting). */
const beating = new WeakMap<Instance, Promise<void>>();

/**
 * Makes sure this instance's heartbeat runs before it holds a lease: other instances judge a holder
 * by it (`isAlive`), and one without a heartbeat looks dead. HubOS `serve()` starts it too; a
 * second `start()` does nothing, and calls from here are joined into one.
 */
export function ensureHeartbeat(instance: Instance): Promise<void> {
  let started = beating.get(instance);
  if (!started) {
    // A first heartbeat that failed (the store away) is tried again by the next caller.
    started = instance.start().catch((error: unknown) => {
      beating.delete(instance);
      throw error;
    });
    beating.set(instance, started);
  }
  return started;
}

const json = (value: LeaseValue | undefined) => value as unknown as StoreValue;

const leasesOf = new WeakMap<Instance, WeakMap<Store, RunLeases>>();

/** The leases of `store` for this instance: one object, so every workflow of a kernel shares what it holds. */
export function runLeases(store: Store, instance: Instance): RunLeases {
  const byStore = leasesOf.get(instance) ?? new WeakMap<Store, RunLeases>();
  leasesOf.set(instance, byStore);
  let leases = byStore.get(store);
  if (!leases) {
    leases = new RunLeases(store, instance);
    byStore.set(store, leases);
  }
  return leases;
}

/**
 * The leases of one store as this instance sees them. A lease is free when it is absent, expired,
 * or its holder is dead (`instance.isAlive`); it is taken and renewed with `compareAndSet`, so of
 * two instances reaching for one run, one gets it. After a store outage longer than a lease every
 * lease has expired: one may be taken before its live holder renews it, which is safe (the holder
 * finds it taken at its next renewal and stops, writing nothing) but redoes the step under way.
 */
export class RunLeases {
  readonly #store: Store;
  readonly #instance: Instance;
  /** Runs this instance holds, so two runs of this process never share one lease. */
  readonly #held = new Set<string>();

  constructor(store: Store, instance: Instance) {
    this.#store = store;
    this.#instance = instance;
  }

  get instanceId(): string {
    return this.#instance.id;
  }

  async read(runId: string): Promise<LeaseValue | undefined> {
    return (await this.#store.get(WORKFLOW_LEASES_NAMESPACE, runId)) as LeaseValue | undefined;
  }

  /** The live instance holding the run's lease, or undefined when it is free. */
  async holder(runId: string, lease?: LeaseValue): Promise<string | undefined> {
    const value = lease ?? (await this.read(runId));
    return value && !(await this.#isFree(runId, value)) ? value.holder : undefined;
  }

  /**
   * Takes the run's lease for this instance; undefined when another live instance (or another run
   * of this one) holds it. `onLost` is called if another instance takes it over meanwhile (this
   * one looked dead): the run must stop writing and stop.
   */
  async acquire(runId: string, onLost: () => void = () => undefined): Promise<RunLease | undefined> {
    await ensureHeartbeat(this.#instance);
    for (let tries = 0; tries < 3; tries++) {
      const current = await this.read(runId);
      if (current && !(await this.#isFree(runId, current))) return undefined;
      const next = this.#fresh();
      if (await this.#store.compareAndSet(WORKFLOW_LEASES_NAMESPACE, runId, json(current), json(next))) {
        this.#held.add(runId);
        return new RunLease(this.#store, runId, next, this.#instance.leaseMs, onLost, () =>
          this.#held.delete(runId),
        );
      }
      // Another instance wrote first: look again at what it wrote.
    }
    return undefined;
  }

  async #isFree(runId: string, lease: LeaseValue): Promise<boolean> {
    if (lease.holder === this.#instance.id) return !this.#held.has(runId);
    return lease.expiresAt <= Date.now() || !(await this.#instance.isAlive(lease.holder));
  }

  #fresh(): LeaseValue {
    return { holder: this.#instance.id, expiresAt: Date.now() + this.#instance.leaseMs };
  }
}

/** A lease this instance holds: renewed every third of the lease until `release()`. */
export class RunLease {
  readonly runId: string;
  #value: LeaseValue;
  #lost = false;
  #released = false;
  #timer: NodeJS.Timeout | undefined;
  #renewing: Promise<void> = Promise.resolve();
  readonly #store: Store;
  readonly #leaseMs: number;
  readonly #onLost: () => void;
  readonly #forget: () => void;

  constructor(
    store: Store,
    runId: string,
    value: LeaseValue,
    leaseMs: number,
    onLost: () => void,
    forget: () => void,
  ) {
    this.#store = store;
    this.runId = runId;
    this.#value = value;
    this.#leaseMs = leaseMs;
    this.#onLost = onLost;
    this.#forget = forget;
    this.#timer = setInterval(
      () => {
        this.#renewing = this.#renew();
      },
      Math.max(250, Math.floor(leaseMs / 3)),
    );
    this.#timer.unref();
  }

  /** True once another instance took the run over. */
  get lost(): boolean {
    return this.#lost;
  }

  get released(): boolean {
    return this.#released;
  }

  /** Stops renewing and frees the lease (if it is still this instance's); once. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#renewing;
    this.#forget();
    if (this.#lost) return;
    const current = (await this.#store.get(WORKFLOW_LEASES_NAMESPACE, this.runId)) as LeaseValue | undefined;
    if (current?.holder === this.#value.holder)
      await this.#store.delete(WORKFLOW_LEASES_NAMESPACE, this.runId);
  }

  async #renew(): Promise<void> {
    const next: LeaseValue = { holder: this.#value.holder, expiresAt: Date.now() + this.#leaseMs };
    try {
      const ns = WORKFLOW_LEASES_NAMESPACE;
      if (await this.#store.compareAndSet(ns, this.runId, json(this.#value), json(next))) {
        this.#value = next;
        return;
      }
      // A CAS whose connection dropped after it wrote answers false: then the store holds `next`.
      const current = (await this.#store.get(ns, this.runId)) as LeaseValue | undefined;
      if (current?.holder === next.holder && current.expiresAt === next.expiresAt) {
        this.#value = current;
        return;
      }
    } catch {
      // The store is away: try again next tick; if the lease expires meanwhile, another may take it.
      return;
    }
    if (this.#timer === undefined) return;
    this.#lost = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#onLost();
  }
}
