import {
  type Agent,
  type AgentHandle,
  type AgentSpec,
  errorMessage,
  HubosError,
  type KernelView,
  type StoreValue,
  storeValue,
  type Usage,
} from '../../core/index.ts';
import { addUsage, didYouMean, emptyUsage } from '../../core/internal.ts';
import { type Claim, type Definition, Slots, storedDefinitions, storedOverrides } from './definitions.ts';
import { agentExists, COSMOS_ERROR_CODES, cosmosFull } from './errors.ts';
import { type DestroyReason, getCosmosHooks } from './hooks.ts';
import {
  AGENT_ID_PATTERN,
  type CosmosAgentInfo,
  type CosmosContext,
  type CosmosOptions,
  type CosmosOverrides,
  type CosmosStats,
  type CreateOptions,
} from './types.ts';

export { COSMOS_NAMESPACE } from './definitions.ts';

/** Where instances on a shared bus tell each other of agents created and removed (a Change). */
export const CHANGES_CHANNEL = 'cosmos:changed';

/** What an instance tells the others: `createdAt` tells an agent from a later one of the same id. */
interface Change {
  id: string;
  op: 'created' | 'active' | Exclude<DestroyReason, 'close'>;
  createdAt: number;
  /** The instance that made the change: it ignores its own. */
  origin: string;
}

export const DEFAULT_MAX_AGENTS = 50;

interface Entry {
  agent: Agent;
  template: string;
  owner: string | undefined;
  createdAt: number;
  lastActiveAt: number;
  runs: number;
  usage: Usage;
  /** Ids of the runs in progress. */
  active: Set<string>;
  /** Set by whoever removes it on purpose (`delete`, eviction). */
  reason?: DestroyReason;
  persisted: boolean;
  /** Removed because another instance removed it: the store and the others know already. */
  remote?: boolean;
  /** When this instance last told the others it ran (shared bus, with idle eviction). */
  toldActiveAt?: number;
}

const ID = new RegExp(AGENT_ID_PATTERN);

/**
 * Cosmos: agents created from the config's templates, at most `maxAgents` at once, each with its
 * runs, token usage and activity tracked; optionally evicted when idle and kept in the store.
 */
export class Cosmos {
  readonly maxAgents: number;
  readonly idleTtlMs: number | undefined;
  readonly persist: boolean;
  readonly #kernel: KernelView;
  readonly #entries = new Map<string, Entry>();
  /** Ids whose creation is under way (template, owner): they hold a slot from the first (synchronous) check on. */
  readonly #pending = new Map<string, { template: string; owner: string | undefined }>();
  readonly #totals = { created: 0, deleted: 0, evicted: 0 };
  readonly #slots: Slots;
  /** Creates under way, settled either way: a change heard for the same id waits for them. */
  readonly #building = new Map<string, Promise<void>>();
  /** Changes heard from the other instances, applied in order. */
  #sync: Promise<void> = Promise.resolve();
  #unsubscribe: (() => Promise<void>) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: CosmosOptions) {
    const { dependencies, maxAgents = DEFAULT_MAX_AGENTS } = options;
    if (!Number.isInteger(maxAgents) || maxAgents < 1)
      throw new HubosError(
        'CONFIG_INVALID',
        `cosmos: maxAgents must be a positive integer (got ${maxAgents})`,
      );
    this.#kernel = dependencies;
    this.maxAgents = maxAgents;
    this.idleTtlMs = options.idleTtlMs;
    this.persist = options.persist ?? false;
    this.#slots = new Slots(() => dependencies.store);
    const { hooks } = dependencies;
    // Tapped as the agent is created, before anyone (HubOS) can run it.
    hooks.agentCreated.tap('cosmos', ({ agent }) => {
      if (this.#pending.has(agent.id)) this.#track(agent);
    });
    hooks.agentDestroy.tapPromise('cosmos', ({ agent }) => this.#forget(agent.id));
    hooks.beforeClose.tap('cosmos', () => this.close());
    if (this.idleTtlMs !== undefined) {
      const every = Math.min(Math.max(Math.floor(this.idleTtlMs / 2), 10), 60_000);
      this.#timer = setInterval(() => {
        this.evictIdle().catch((error) =>
          this.#kernel.logger.warn(`cosmos: eviction: ${errorMessage(error)}`),
        );
      }, every);
      this.#timer.unref();
    }
  }

  get #hooks() {
    return getCosmosHooks.owned(this.#kernel);
  }

  /**
   * Whether definitions go to the store, where they are the slots of `maxAgents` for every
   * instance sharing it: with `persist`, and always on a shared bus (the others build agents from them).
   */
  get #stored(): boolean {
    return this.persist || this.#kernel.bus.shared;
  }

  /** The templates agents are built from: the config's `agents`. */
  get templates(): Record<string, Omit<AgentSpec, 'name'>> {
    return this.#kernel.config.agents ?? {};
  }

  /** Agents held plus those being created. */
  get size(): number {
    let size = this.#entries.size;
    for (const id of this.#pending.keys()) if (!this.#entries.has(id)) size++;
    return size;
  }

  /**
   * Builds an agent from a template with overrides: `create({ agentId, templateId, instructions })`
   * or `create(ctx, options)`. Fails with `COSMOS_FULL` at capacity, `AGENT_EXISTS` when the id is
   * taken, `TEMPLATE_NOT_FOUND` for an unknown template.
   */
  create(options: CreateOptions): Promise<Agent>;
  create(ctx: CosmosContext | undefined, options: CreateOptions): Promise<Agent>;
  create(first: CosmosContext | CreateOptions | undefined, second?: CreateOptions): Promise<Agent> {
    const ctx: CosmosContext = second === undefined ? {} : ((first as CosmosContext | undefined) ?? {});
    const options = second ?? (first as CreateOptions);
    try {
      this.#reserve(options);
    } catch (error) {
      return Promise.reject(error);
    }
    const built = this.#build(ctx, options, this.#stored);
    // Only followed on a shared bus (see #apply): a single instance spends nothing on it.
    if (!this.#unsubscribe) return built;
    const settled = built.then(
      () => undefined,
      () => undefined,
    );
    this.#building.set(options.agentId, settled);
    void settled.then(() => {
      if (this.#building.get(options.agentId) === settled) this.#building.delete(options.agentId);
    });
    return built;
  }

  /**
   * Synchronous checks, then the slot is held: no await may come between them. `capacity: false`
   * for an agent another instance created: the store counted it already.
   */
  #reserve(options: CreateOptions, capacity = true): void {
    const { agentId, templateId, owner } = options ?? ({} as CreateOptions);
    if (this.#closed) throw new HubosError('KERNEL_STATE', 'cosmos is closed: the kernel is closing');
    if (typeof agentId !== 'string' || !ID.test(agentId)) {
      throw new HubosError(
        'AGENT_INVALID',
        `cosmos: agentId must match ${AGENT_ID_PATTERN} (got ${JSON.stringify(agentId)})`,
      );
    }
    if (typeof templateId !== 'string' || !Object.hasOwn(this.templates, templateId)) {
      const known = Object.keys(this.templates).join(', ') || 'none';
      throw COSMOS_ERROR_CODES.create(
        'TEMPLATE_NOT_FOUND',
        `no agent template "${templateId}"${typeof templateId === 'string' ? didYouMean(templateId, Object.keys(this.templates)) : ''} (templates: ${known})`,
        {
          details: { template: templateId },
        },
      );
    }
    if (this.#entries.has(agentId) || this.#pending.has(agentId) || this.#kernel.getAgent(agentId))
      throw agentExists(agentId);
    if (capacity && this.size >= this.maxAgents) throw cosmosFull(this.maxAgents);
    if (owner !== undefined && (typeof owner !== 'string' || owner === '')) {
      throw new HubosError(
        'AGENT_INVALID',
        `cosmos: owner must be a principal's id, a non-empty string (got ${JSON.stringify(owner)})`,
      );
    }
    this.#pending.set(agentId, { template: templateId, owner });
  }

  /** Builds the agent; with `store`, first claims its slot in the store and commits it once built. */
  async #build(ctx: CosmosContext, options: CreateOptions, store: boolean, createdAt = Date.now()) {
    const { agentId, templateId, owner } = options;
    const overrides = pickOverrides(options);
    let claim: Claim | undefined;
    try {
      const stored = store ? storedOverrides(agentId, overrides) : undefined;
      if (stored) {
        // A definition no instance can build (its template is gone) holds no slot, as before.
        const counts = (stored: string) => Object.hasOwn(this.templates, stored);
        claim = await this.#slots.claim(agentId, this.maxAgents, counts);
      }
      const template = this.templates[templateId]!;
      const spec: AgentSpec = {
        ...template,
        ...overrides,
        metadata: { ...template.metadata, ...overrides.metadata, cosmos: { template: templateId } },
        name: agentId,
      };
      const spawn = { cosmos: this, agentId, templateId, spec, ctx };
      await this.#hooks.spawn.promise(spawn);
      ctx.signal?.throwIfAborted();
      const agent = await this.#kernel.createAgent({ ...spawn.spec, name: agentId });
      const entry = this.#entries.get(agentId);
      if (!entry)
        throw new HubosError('AGENT_NOT_FOUND', `agent "${agentId}" was destroyed as it was created`);
      entry.createdAt = createdAt;
      this.#totals.created++;
      if (claim && stored) {
        const definition: Definition = {
          agentId,
          templateId,
          overrides: stored,
          createdAt,
          ...(owner !== undefined ? { owner } : {}),
        };
        try {
          await this.#slots.commit(claim, definition);
          claim = undefined;
          entry.persisted = true;
        } catch (error) {
          await this.delete(agentId);
          throw error;
        }
        this.#tell(agentId, 'created', createdAt);
      }
      await this.#hooks.spawned.promise({ cosmos: this, agent: this.#info(agentId, entry), ctx });
      return agent;
    } catch (error) {
      if (claim)
        await this.#slots
          .release(claim)
          .catch((failure) =>
            this.#kernel.logger.warn(`cosmos: freeing the slot of "${agentId}": ${errorMessage(failure)}`),
          );
      // The kernel dropped an agent whose `agentCreated` failed without destroying it: so do we.
      const entry = this.#entries.get(agentId);
      if (entry && this.#kernel.getAgent(agentId) !== entry.agent) this.#entries.delete(agentId);
      throw error;
    } finally {
      this.#pending.delete(agentId);
    }
  }

  /** Starts tracking an agent being created: its runs, usage and activity. */
  #track(agent: AgentHandle): void {
    const now = Date.now();
    const { template, owner } = this.#pending.get(agent.id)!;
    const entry: Entry = {
      agent: this.#kernel.agent(agent.id),
      template,
      owner,
      createdAt: now,
      lastActiveAt: now,
      runs: 0,
      usage: emptyUsage(),
      active: new Set(),
      persisted: false,
    };
    this.#entries.set(agent.id, entry);
    // The id, not the handle: the closures below live as long as the agent.
    const { id } = agent;
    agent.hooks.beforeRun.tap('cosmos', (run) => {
      entry.active.add(run.runId);
      entry.lastActiveAt = Date.now();
      this.#active(id, entry);
    });
    agent.hooks.afterRun.tap('cosmos', ({ run, result }) => {
      entry.active.delete(run.runId);
      entry.runs++;
      entry.usage = addUsage(entry.usage, result.usage);
      entry.lastActiveAt = Date.now();
      this.#active(id, entry);
    });
  }

  /**
   * Idleness is judged by each instance from the runs it sees: on a shared bus with idle eviction,
   * runs are told to the others (a few seconds apart at most), so none evicts an agent busy elsewhere.
   */
  #active(id: string, entry: Entry): void {
    if (this.idleTtlMs === undefined || !this.#unsubscribe || !entry.persisted) return;
    const now = Date.now();
    if (now - (entry.toldActiveAt ?? 0) < Math.min(this.idleTtlMs / 4, 5_000)) return;
    entry.toldActiveAt = now;
    this.#tell(id, 'active', entry.createdAt);
  }

  /** The agent, or undefined. */
  get(id: string): Agent | undefined {
    return this.#entries.get(id)?.agent;
  }

  has(id: string): boolean {
    return this.#entries.has(id);
  }

  /** The principal that created the agent over HTTP; undefined for a shared agent or one Cosmos does not hold. */
  ownerOf(id: string): string | undefined {
    return this.#entries.get(id)?.owner;
  }

  /** What Cosmos knows of the agent (template, state, times, runs, usage), or undefined. */
  info(id: string): CosmosAgentInfo | undefined {
    const entry = this.#entries.get(id);
    return entry && this.#info(id, entry);
  }

  /** Cancels the agent's running work, destroys it (firing the destroy hooks) and frees its slot; false if absent. */
  async delete(id: string): Promise<boolean> {
    const entry = this.#entries.get(id);
    if (!entry) return false;
    entry.reason ??= 'deleted';
    return this.#kernel.destroyAgent(id);
  }

  /** The agents whose id starts with `filter` ('' lists all). */
  list(filter = ''): Agent[] {
    const agents: Agent[] = [];
    for (const [id, entry] of this.#entries) if (id.startsWith(filter)) agents.push(entry.agent);
    return agents;
  }

  stats(): CosmosStats {
    const byTemplate: Record<string, number> = {};
    const byState = { idle: 0, running: 0 };
    const agents: CosmosAgentInfo[] = [];
    for (const [id, entry] of this.#entries) {
      const info = this.#info(id, entry);
      byTemplate[info.template] = (byTemplate[info.template] ?? 0) + 1;
      byState[info.state]++;
      agents.push(info);
    }
    return {
      capacity: this.maxAgents,
      count: this.#entries.size,
      byTemplate,
      byState,
      totals: { ...this.#totals },
      agents,
    };
  }

  /** Destroys the agents idle for `idleTtlMs` or longer (never a running one); resolves with their ids. */
  async evictIdle(now = Date.now()): Promise<string[]> {
    if (this.idleTtlMs === undefined || this.#closed) return [];
    const evicted: string[] = [];
    for (const [id, entry] of [...this.#entries]) {
      const idleMs = now - entry.lastActiveAt;
      if (entry.active.size > 0 || idleMs < this.idleTtlMs || entry.reason) continue;
      entry.reason = 'evicted';
      const info = this.#info(id, entry);
      if (!(await this.#kernel.destroyAgent(id))) continue;
      evicted.push(id);
      await this.#hooks.evicted.promise({ cosmos: this, agent: info, idleMs });
    }
    return evicted;
  }

  /**
   * Builds the agents whose definitions the store keeps (with `persist`, or on a shared bus): called
   * at startup by `start()`, in the kernel's `ready` hook. A definition that can no longer be built (its template is gone) is
   * skipped with a warning and kept. Resolves with the ids restored.
   */
  async restore(): Promise<string[]> {
    const restored: string[] = [];
    for (const key of await storedDefinitions(this.#kernel.store).keys())
      if (await this.#load(key, { restored: true })) restored.push(key);
    return restored;
  }

  /**
   * Called in the kernel's `ready` hook: on a shared bus, follows the agents the other instances
   * create and remove; then restores the stored agents (with `persist`, always on a shared bus).
   */
  async start(): Promise<void> {
    const bus = this.#kernel.bus;
    // Subscribed before restoring: a change made meanwhile is applied after the restore, not lost.
    if (bus.shared && !this.#unsubscribe)
      this.#unsubscribe = await bus.subscribe(CHANGES_CHANNEL, (message) => this.#heard(message));
    if (!this.#stored) return;
    const restoring = this.restore();
    this.#sync = restoring.then(
      () => undefined,
      () => undefined,
    );
    await restoring;
  }

  /** Builds the agent a stored definition describes; false (with a warning if it is broken) when it does not. */
  async #load(key: string, ctx: CosmosContext): Promise<boolean> {
    // Ours already (restored, or heard of while restoring), or being created here.
    if (this.#closed || this.#entries.has(key) || this.#pending.has(key)) return false;
    const definition = await storedDefinitions(this.#kernel.store).get(key);
    // Gone since.
    if (definition === undefined) return false;
    const { agentId, templateId, overrides, createdAt, owner } = definition;
    try {
      const options: CreateOptions = {
        ...overrides,
        agentId,
        templateId,
        ...(owner !== undefined ? { owner } : {}),
      };
      // One another instance created was counted in the store: it may take a slot held here still.
      this.#reserve(options, ctx.mirrored !== true);
      await this.#build(ctx, options, false, createdAt);
      this.#entries.get(agentId)!.persisted = true;
      return true;
    } catch (error) {
      const what = ctx.mirrored ? 'build agent' : 'restore agent';
      this.#kernel.logger.warn(`cosmos: could not ${what} "${key}": ${errorMessage(error)}`);
      return false;
    }
  }

  /** Tells the other instances on a shared bus; a failure is logged, the change stands. */
  #tell(id: string, op: Change['op'], createdAt: number): void {
    const bus = this.#kernel.bus;
    if (!bus.shared) return;
    const change: Change = { id, op, createdAt, origin: this.#kernel.instance.id };
    bus
      .publish(CHANGES_CHANNEL, storeValue(change))
      .catch((error) =>
        this.#kernel.logger.warn(`cosmos: telling the other instances of "${id}": ${errorMessage(error)}`),
      );
  }

  /** A change another instance made: applied in order, after the restore. */
  #heard(message: StoreValue): void {
    const change = message as unknown as Partial<Change> | null;
    if (!change || typeof change.id !== 'string' || change.origin === this.#kernel.instance.id) return;
    const { id, op, createdAt } = change;
    if (op === 'active') {
      const entry = this.#entries.get(id);
      if (entry && entry.createdAt === createdAt) entry.lastActiveAt = Date.now();
      return;
    }
    this.#sync = this.#sync
      .then(() => this.#apply(id, op, createdAt))
      .catch((error) =>
        this.#kernel.logger.warn(`cosmos: applying a change to "${id}": ${errorMessage(error)}`),
      );
  }

  async #apply(id: string, op: Change['op'] | undefined, createdAt: number | undefined): Promise<void> {
    if (this.#closed) return;
    if (op === 'created') {
      // A create of the same id here loses to it in the store: build theirs once ours gave up.
      await this.#building.get(id);
      await this.#load(id, { restored: true, mirrored: true });
      return;
    }
    const entry = this.#entries.get(id);
    // Gone here too, or a later agent of the same id.
    if (!entry || entry.createdAt !== createdAt) return;
    entry.reason ??= op === 'evicted' || op === 'deleted' ? op : 'destroyed';
    entry.remote = true;
    await this.#kernel.destroyAgent(id);
  }

  /** Stops eviction and refuses new agents (the kernel's close destroys the agents; definitions stay stored). */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    const unsubscribe = this.#unsubscribe;
    this.#unsubscribe = undefined;
    unsubscribe?.().catch(() => undefined);
  }

  /** Bookkeeping for an agent of ours leaving, however it was destroyed. */
  async #forget(id: string): Promise<void> {
    const entry = this.#entries.get(id);
    if (!entry) return;
    this.#entries.delete(id);
    const reason: DestroyReason = entry.reason ?? (this.#closed ? 'close' : 'destroyed');
    if (reason === 'evicted') this.#totals.evicted++;
    else this.#totals.deleted++;
    if (entry.persisted && reason !== 'close' && !entry.remote) {
      await this.#slots.remove(id, entry.createdAt);
      this.#tell(id, reason, entry.createdAt);
    }
    await this.#hooks.destroyed.promise({ cosmos: this, agent: this.#info(id, entry), reason });
  }

  #info(id: string, entry: Entry): CosmosAgentInfo {
    return {
      id,
      template: entry.template,
      ...(entry.owner !== undefined ? { owner: entry.owner } : {}),
      state: entry.active.size > 0 ? 'running' : 'idle',
      createdAt: new Date(entry.createdAt).toISOString(),
      lastActiveAt: new Date(entry.lastActiveAt).toISOString(),
      runs: entry.runs,
      usage: { ...entry.usage },
    };
  }
}

function pickOverrides(options: CreateOptions): CosmosOverrides {
  const overrides: CosmosOverrides = {};
  if (options.instructions !== undefined) overrides.instructions = options.instructions;
  if (options.model !== undefined) overrides.model = options.model;
  if (options.tools !== undefined) overrides.tools = [...options.tools];
  if (options.metadata !== undefined) overrides.metadata = { ...options.metadata };
  return overrides;
}
