import {
  type Agent,
  type AgentHandle,
  type AgentSpec,
  addUsage,
  emptyUsage,
  errorMessage,
  HubosError,
  isLanguageModel,
  type KernelView,
  type StoreValue,
  type Usage,
} from '../../core/index.ts';
import { COSMOS_ERROR_CODES } from './errors.ts';
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

/** The store namespace persisted definitions live in, one key per agent id. */
export const COSMOS_NAMESPACE = 'cosmos';

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
}

/** A persisted definition: enough to build the agent again. */
interface Definition {
  agentId: string;
  templateId: string;
  overrides: CosmosOverrides;
  createdAt: number;
  /** Absent for a shared agent, and in definitions stored before owners were kept. */
  owner?: string;
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
    return getCosmosHooks(this.#kernel);
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
    return this.#build(ctx, options, this.persist);
  }

  /** Synchronous checks, then the slot is held: no await may come between them. */
  #reserve(options: CreateOptions): void {
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
        `no agent template "${templateId}" (templates: ${known})`,
        {
          details: { template: templateId },
        },
      );
    }
    if (this.#entries.has(agentId) || this.#pending.has(agentId) || this.#kernel.getAgent(agentId)) {
      throw new HubosError('AGENT_EXISTS', `an agent named "${agentId}" already exists`, {
        details: { agent: agentId },
      });
    }
    if (this.size >= this.maxAgents) {
      throw COSMOS_ERROR_CODES.create(
        'COSMOS_FULL',
        `cosmos is full: it holds at most ${this.maxAgents} agents (maxAgents); delete one first`,
        { details: { maxAgents: this.maxAgents } },
      );
    }
    if (owner !== undefined && (typeof owner !== 'string' || owner === '')) {
      throw new HubosError(
        'AGENT_INVALID',
        `cosmos: owner must be a principal's id, a non-empty string (got ${JSON.stringify(owner)})`,
      );
    }
    this.#pending.set(agentId, { template: templateId, owner });
  }

  async #build(ctx: CosmosContext, options: CreateOptions, persist: boolean, createdAt = Date.now()) {
    const { agentId, templateId, owner } = options;
    const overrides = pickOverrides(options);
    try {
      if (persist && overrides.model !== undefined && isLanguageModel(overrides.model)) {
        throw new HubosError(
          'AGENT_INVALID',
          `cosmos: agent "${agentId}" is persisted, so its model must be a reference string, not an object`,
        );
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
      if (persist) {
        const definition: Definition = {
          agentId,
          templateId,
          overrides,
          createdAt,
          ...(owner !== undefined ? { owner } : {}),
        };
        try {
          await this.#kernel.store.set(COSMOS_NAMESPACE, agentId, definition as unknown as StoreValue);
          entry.persisted = true;
        } catch (error) {
          await this.delete(agentId);
          throw error;
        }
      }
      await this.#hooks.spawned.promise({ cosmos: this, agent: this.#info(agentId, entry), ctx });
      return agent;
    } catch (error) {
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
    agent.hooks.beforeRun.tap('cosmos', (run) => {
      entry.active.add(run.runId);
      entry.lastActiveAt = Date.now();
    });
    agent.hooks.afterRun.tap('cosmos', ({ run, result }) => {
      entry.active.delete(run.runId);
      entry.runs++;
      entry.usage = addUsage(entry.usage, result.usage);
      entry.lastActiveAt = Date.now();
    });
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
   * Builds the agents whose definitions the store keeps (with `persist`): called at startup, in
   * the kernel's `ready` hook. A definition that can no longer be built (its template is gone) is
   * skipped with a warning and kept. Resolves with the ids restored.
   */
  async restore(): Promise<string[]> {
    const store = this.#kernel.store;
    const restored: string[] = [];
    for (const key of await store.list(COSMOS_NAMESPACE)) {
      const definition = await store.get<StoreValue>(COSMOS_NAMESPACE, key);
      const { agentId, templateId, overrides, createdAt, owner } = (definition ??
        {}) as unknown as Definition;
      try {
        const options: CreateOptions = {
          ...overrides,
          agentId,
          templateId,
          ...(owner !== undefined ? { owner } : {}),
        };
        this.#reserve(options);
        await this.#build({ restored: true }, options, false, createdAt);
        this.#entries.get(agentId)!.persisted = true;
        restored.push(agentId);
      } catch (error) {
        this.#kernel.logger.warn(`cosmos: could not restore agent "${key}": ${errorMessage(error)}`);
      }
    }
    return restored;
  }

  /** Stops eviction and refuses new agents (the kernel's close destroys the agents; definitions stay stored). */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Bookkeeping for an agent of ours leaving, however it was destroyed. */
  async #forget(id: string): Promise<void> {
    const entry = this.#entries.get(id);
    if (!entry) return;
    this.#entries.delete(id);
    const reason: DestroyReason = entry.reason ?? (this.#closed ? 'close' : 'destroyed');
    if (reason === 'evicted') this.#totals.evicted++;
    else this.#totals.deleted++;
    if (entry.persisted && reason !== 'close') await this.#kernel.store.delete(COSMOS_NAMESPACE, id);
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
