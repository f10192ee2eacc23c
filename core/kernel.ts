import { dirname, resolve } from 'node:path';
import { Agent, SET_TOOLS } from './agent/agent.ts';
import { Approvals } from './agent/approvals.ts';
import { Sessions } from './agent/sessions.ts';
import type { AgentSpec } from './agent/spec.ts';
import { tracingChanged } from './agent/telemetry.ts';
import type { ToolGuardrails } from './agent/tool-pipeline.ts';
import { selectTools } from './agent/tool-select.ts';
import type { Bus } from './bus/bus.ts';
import { DEFAULT_LEASE_MS, openBus } from './bus/open-bus.ts';
import { didYouMean } from './closest-name.ts';
import { Coalescer } from './coalescer.ts';
import { type ConfigExport, resolveConfigExport } from './config.ts';
import { type OwnedKey, validateConfig } from './config-schema.ts';
import { agentToolResults } from './context/agent-tool-results.ts';
import { Compaction } from './context/compaction.ts';
import { resolveCompaction } from './context/context-config.ts';
import { errorMessage, HubosError } from './errors.ts';
import { ScorerRegistry } from './evals/scorer-registry.ts';
import { GuardrailRegistry } from './guardrails/registry.ts';
import {
  agentGuardrails,
  isEmpty,
  resolveGuardrails,
  type StageGuardrails,
} from './guardrails/resolve-guardrails.ts';
import { REGISTER_OWNED_HOOKS } from './hook-owner.ts';
import { type TappableHook, tapView, tapViews, traceHooks } from './hook-utils.ts';
import { createKernelHooks, type KernelHooks } from './hooks.ts';
import type { HubosConfig } from './index.ts';
import { Instance } from './instance.ts';
import { KERNEL_OF, type KernelView, PLUGIN_OF } from './kernel-view.ts';
import { createConsoleLogger, type Logger } from './logger.ts';
import { fallbackModel, isFallbackModel } from './model/fallback-model.ts';
import {
  isModelObject,
  type LanguageModel,
  type ModelObject,
  modelRefOf,
  toLanguageModel,
} from './model/model.ts';
import { type ModelLimitsTable, modelLimitsTable } from './model/model-limits.ts';
import { resolveModelSetting } from './model/model-setting.ts';
import { ModelRateLimiter } from './model/rate-limits.ts';
import { ModelRegistry } from './model/registry.ts';
import { createPolicy, type Policy } from './permissions.ts';
import type { Plugin, PluginOption } from './plugin.ts';
import { orderPlugins } from './plugin-order.ts';
import { resolvePlugins } from './plugin-resolve.ts';
import { PromptRegistry } from './prompts/registry.ts';
import { ResourceRegistry } from './resources/registry.ts';
import { tendBesideRuns } from './runs/beside-runs.ts';
import { RunEngine } from './runs/run-engine.ts';
import { openWorkspace, type Sandbox } from './sandbox/sandbox.ts';
import { type ServiceName, type ServiceOf, Services } from './services.ts';
import { openStore } from './store/open-store.ts';
import type { Store } from './store/store.ts';
import { startTraceExport, type TraceExport } from './telemetry/otlp-export.ts';
import { otlpSettings } from './telemetry/telemetry-config.ts';
import { ToolCalls } from './tool-calls.ts';
import { Registry } from './tools/registry.ts';
import type { Tool } from './tools/tool.ts';
import { type PriceTable, priceTable } from './usage/model-prices.ts';

export interface KernelOptions {
  /** The config: an object, a promise, or a function of `{ mode, command }` (see `loadConfigFile`). */
  config?: ConfigExport;
  /** Where the config came from: named in errors; string plugin specifiers resolve from its folder. */
  configFile?: string;
  cwd?: string;
  /** Passed to config functions; defaults to NODE_ENV or 'development'. */
  mode?: string;
  command?: string;
  /** Plugins applied with the config's (e.g. the built-in defaults). */
  plugins?: PluginOption[];
  /** How long one plugin's apply() may take. */
  pluginTimeoutMs?: number;
  /** A store to use instead of the configured one (e.g. a MemoryStore in tests). */
  store?: Store;
  /** A bus to use instead of the configured one (e.g. instances of one test sharing a LocalBus). */
  bus?: Bus;
  logger?: Logger;
}

export interface KernelInspection {
  plugins: { name: string; version?: string; enforce?: 'pre' | 'post'; dependencies: string[] }[];
  /** Per hook (`owner.hook` for plugin-owned ones), its taps in call order. */
  hooks: Record<string, { name: string; plugin?: string; type: string; stage: number }[]>;
}

/** Where a kernel is in its life: `boot()` takes it from `created` to `ready` (or `failed`), `close()` to `closed`. */
export type KernelState = 'created' | 'booting' | 'ready' | 'failed' | 'closing' | 'closed';

/** The kernel: loads plugins, resolves config, owns the tool registry; knows nothing of HTTP or teams. */
export class Kernel {
  readonly hooks: KernelHooks = createKernelHooks();
  readonly registry = new Registry();
  /**
   * Where every tool call runs (`kernel.tools.call()`), whoever makes it: the permission policy and
   * its approvals, then the kernel's tool-call hooks around the calling agent's. Usable once booted.
   */
  readonly tools = new ToolCalls(() => ({
    hooks: this.hooks,
    registry: this.registry,
    approvals: this.approvals,
    sandbox: this.sandbox,
    store: this.store,
    policy: () => this.#policy(),
    guardrails: this.#toolGuardrails,
    resolveModel: this.#resolveRef,
    onHookError: (hook, error) =>
      this.logger.warn(
        `a tap of kernel hook "${hook}" failed (the call's result stands): ${errorMessage(error)}`,
      ),
  }));
  /**
   * The guardrails configs may name (`agents.<name>.guardrails`, the top-level `guardrails`): the
   * built-ins and those plugins register in their `apply()`.
   */
  readonly guardrails = new GuardrailRegistry();
  readonly resources = new ResourceRegistry();
  readonly prompts = new PromptRegistry();
  readonly models = new ModelRegistry();
  /** The scorers evals may name: the built-ins and those plugins register in their setup. */
  readonly scorers = new ScorerRegistry();
  readonly cwd: string;
  readonly mode: string;
  readonly command: string;
  readonly logger: Logger;
  readonly configFile: string | undefined;
  /** @internal */
  readonly [KERNEL_OF]: object = this;
  #config: HubosConfig = {};
  #state: KernelState = 'created';
  #plugins: Plugin[] = [];
  readonly #extra: PluginOption[];
  readonly #options: KernelOptions;
  readonly #owned = new Map<string, Record<string, TappableHook>>();
  readonly #agents = new Map<string, Agent>();
  readonly #services = new Services();
  #store: Store | undefined;
  #bus: Bus | undefined;
  /** Makes models wait for their provider's `rateLimits` (made at boot, on the bus). */
  #rateLimiter: ModelRateLimiter | undefined;
  #instance: Instance | undefined;
  #sessions: Sessions | undefined;
  #sandbox: Sandbox | undefined;
  #approvals: Approvals | undefined;
  #runs: RunEngine | undefined;
  #traceExport: TraceExport | undefined;
  /** Whether this kernel's `telemetry` set how spans are made (undone at close). */
  #tracing = false;
  #configPolicy: { config: HubosConfig; policy: Policy } | undefined;
  /** The config's `guardrails`, made at boot: its input and output ones go to every agent. */
  #globalGuardrails: StageGuardrails | undefined;
  /** Its `tool` ones, checked on every call through `kernel.tools`. */
  #toolGuardrails: ToolGuardrails | undefined;
  /** A model reference through `kernel.models`: what a tool guardrail that asks a model is given. */
  readonly #resolveRef = (ref: string): LanguageModel => this.models.resolve(ref);
  #closing: Promise<void> | undefined;
  #booting: Promise<unknown> = Promise.resolve();
  /** Bumped on every registry change: an agent built across one gets its tools refreshed. */
  #toolsVersion = 0;
  /** The built-in model limits with the config's `modelLimits` over them, made at the first agent that needs them. */
  #modelLimits: ModelLimitsTable | undefined;
  /** The built-in prices with the config's `pricing` over them, made once for every agent (Cosmos makes thousands). */
  #prices: PriceTable | undefined;
  readonly #toolRefresh = new Coalescer(
    () => this.#refreshAgentTools(),
    (error) => this.logger.error(`refreshing agents' tools: ${errorMessage(error)}`),
  );

  constructor(options: KernelOptions = {}) {
    this.#options = options;
    this.cwd = options.cwd ?? process.cwd();
    this.mode = options.mode ?? process.env.NODE_ENV ?? 'development';
    this.command = options.command ?? 'run';
    this.logger = options.logger ?? createConsoleLogger();
    this.configFile = options.configFile;
    this.#extra = [...(options.plugins ?? [])];
    if (process.env.HUBOS_TRACE_HOOKS) traceHooks(this.hooks, (line) => this.logger.info(line));
  }

  /** The config: as given until boot, resolved (hooks run, defaults applied, validated) after. */
  get config(): HubosConfig {
    return this.#config;
  }

  get state(): KernelState {
    return this.#state;
  }

  get plugins(): readonly Plugin[] {
    return this.#plugins;
  }

  /** Adds plugins before boot. */
  use(...plugins: PluginOption[]): this {
    if (this.#state !== 'created') {
      throw new HubosError(
        'KERNEL_STATE',
        `kernel.use() must be called before boot() (the kernel is ${this.#state})`,
      );
    }
    this.#extra.push(...plugins);
    return this;
  }

  /**
   * Loads and applies plugins, resolves and validates the config, registers models and tools,
   * then fires `ready`. On failure the kernel closes what the plugins opened and rethrows.
   */
  boot(): Promise<this> {
    if (this.#state !== 'created') {
      return Promise.reject(
        new HubosError('KERNEL_STATE', `kernel.boot() can run once (the kernel is ${this.#state})`),
      );
    }
    this.#state = 'booting';
    const booting = this.#settleBoot();
    // What close() waits for: the boot done and the kernel's state final, whichever way it went.
    this.#booting = booting.then(
      () => undefined,
      () => undefined,
    );
    return booting;
  }

  async #settleBoot(): Promise<this> {
    try {
      await this.#boot();
      this.#state = 'ready';
      return this;
    } catch (error) {
      this.#state = 'failed';
      await this.#runClose('boot-failed').catch((closeError) => this.logger.warn(errorMessage(closeError)));
      throw error;
    }
  }

  async #boot(): Promise<void> {
    const env = { mode: this.mode, command: this.command };
    const loaded = await resolveConfigExport(this.#options.config ?? {}, env, this.configFile);
    // Plugins own the other keys, so a bad `plugins` is reported with what the core alone can check.
    if (loaded.plugins !== undefined && !Array.isArray(loaded.plugins)) {
      validateConfig(loaded, new Map(), this.configFile);
    }
    this.#config = loaded;
    const baseDir = this.configFile ? dirname(this.configFile) : this.cwd;
    const resolved = await resolvePlugins([...this.#extra, ...(loaded.plugins ?? [])], baseDir);
    this.#plugins = orderPlugins(resolved);
    for (const plugin of this.#plugins) this.#services.declare(plugin.name, plugin.provides ?? []);
    const owned = this.#ownedConfigKeys();
    for (const plugin of this.#plugins) await this.#apply(plugin);
    await this.hooks.pluginsApplied.promise({ plugins: this.#plugins });

    const config = (await this.hooks.config.promise(this.#config)) ?? this.#config;
    this.#config = validateConfig(config, owned, this.configFile);
    await this.hooks.configResolved.promise({ config: this.#config, configFile: this.configFile });
    this.#resolveGlobalGuardrails();
    this.#startTelemetry();
    this.#store = this.#options.store ?? (await openStore(this.#config.store, baseDir));
    this.#bus = this.#options.bus ?? (await openBus(this.#config.bus));
    if (this.#config.rateLimits) this.#rateLimiter = new ModelRateLimiter(this.#bus, this.#config.rateLimits);
    this.#instance = new Instance(this.#store, this.#config.bus?.leaseMs ?? DEFAULT_LEASE_MS);
    this.#sessions = new Sessions(this.#store, this.#config.sessions);
    this.#approvals = new Approvals(this.#store, {
      bus: this.#bus,
      onError: (message) => this.logger.warn(message),
    });
    this.#runs = this.#openRuns(this.#store, this.#bus, this.#instance, this.#approvals);
    this.#sandbox = openWorkspace(resolve(baseDir, this.#config.workspace ?? 'workspace'));
    await this.hooks.registerModels.promise(this.models);
    await this.hooks.registerTools.promise(this.registry);
    // Subscribed before the first await: a source registering in the background (an MCP server) is not missed.
    const registered = this.registry.list();
    this.registry.onRegister((tool) => {
      this.hooks.toolRegistered.promise({ tool }).catch((error) => this.logger.error(errorMessage(error)));
    });
    // Tools come and go after boot (MCP servers): live agents get their tools selected again.
    this.registry.onChange(() => {
      this.#toolsVersion++;
      this.#toolRefresh.schedule();
    });
    for (const tool of registered) await this.hooks.toolRegistered.promise({ tool });
    for (const [name, template] of Object.entries(this.#config.agents ?? {}))
      await this.createAgent({ ...template, name });
    await this.hooks.ready.promise({ config: this.#config });
    const [missing] = this.#services.missing();
    if (missing)
      throw new HubosError(
        'PLUGIN_INVALID',
        `plugin "${missing.plugin}" declares that it provides the "${missing.service}" service but did not provide it during boot: call kernel.provide("${missing.service}", value) by the "ready" hook, or drop it from "provides"`,
        { details: { plugin: missing.plugin, service: missing.service } },
      );
  }

  /** The top-level `guardrails`: an unknown name or bad options fail the boot (GUARDRAIL_INVALID). */
  #resolveGlobalGuardrails(): void {
    const made = resolveGuardrails(this.guardrails, this.#config.guardrails, 'guardrails');
    if (isEmpty(made)) return;
    this.#globalGuardrails = made;
    if (made.toolInput.length || made.toolOutput.length)
      this.#toolGuardrails = { input: made.toolInput, output: made.toolOutput };
  }

  #ownedConfigKeys(): Map<string, OwnedKey> {
    const owned = new Map<string, OwnedKey>();
    for (const plugin of this.#plugins) {
      for (const [key, schema] of Object.entries(plugin.configSchema ?? {})) {
        const other = owned.get(key);
        if (other || key === 'plugins') {
          throw new HubosError(
            'PLUGIN_INVALID',
            `plugin "${plugin.name}" declares config key "${key}", which ${other ? `plugin "${other.owner}"` : 'the kernel'} already owns`,
            { details: { plugin: plugin.name } },
          );
        }
        owned.set(key, { owner: plugin.name, schema });
      }
    }
    return owned;
  }

  async #apply(plugin: Plugin): Promise<void> {
    const timeoutMs = this.#options.pluginTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new HubosError(
            'PLUGIN_APPLY_TIMEOUT',
            `plugin "${plugin.name}" did not finish apply() within ${timeoutMs} ms: apply() must only tap hooks; start long work in the "ready" hook`,
            { details: { plugin: plugin.name } },
          ),
        );
      }, timeoutMs);
    });
    try {
      await Promise.race([Promise.resolve().then(() => plugin.apply(this.#viewFor(plugin))), timeout]);
    } catch (error) {
      if (HubosError.is(error, 'PLUGIN_APPLY_TIMEOUT') || (HubosError.is(error) && error.details.plugin))
        throw error;
      throw new HubosError(
        'PLUGIN_APPLY_FAILED',
        `plugin "${plugin.name}" failed in apply(): ${errorMessage(error)}`,
        {
          cause: error,
          details: { plugin: plugin.name },
        },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  // The kernel's one run engine: every face (server, A2A, MCP, workflows, teams) records its runs here.
  #openRuns(store: Store, bus: Bus, instance: Instance, approvals: Approvals): RunEngine {
    const warn = (message: string) => this.logger.warn(message);
    const runs = new RunEngine({
      store,
      bus,
      instance,
      onError: warn,
      retention: this.#config.runs?.retention,
      eventsTtlMs: this.#config.runs?.eventsTtlMs,
      durability: this.#config.runs?.durability,
      recordSteps: this.#config.runs?.recordSteps,
    });
    tendBesideRuns(runs, {
      approvals: () => approvals,
      runsRetention: this.#config.runs?.retention,
      store,
      sessions: {
        store,
        retention: this.#config.sessions?.retention,
      },
      onError: warn,
    });
    return runs;
  }

  #viewFor(plugin: Plugin): KernelView {
    const kernel = this;
    return Object.freeze({
      hooks: this.#hookViews(plugin.name),
      registry: this.registry,
      tools: this.tools,
      guardrails: this.guardrails,
      resources: this.resources,
      prompts: this.prompts,
      models: this.models,
      scorers: this.scorers,
      get config() {
        return kernel.config;
      },
      configFile: this.configFile,
      cwd: this.cwd,
      mode: this.mode,
      command: this.command,
      logger: this.logger,
      get store() {
        return kernel.store;
      },
      get bus() {
        return kernel.bus;
      },
      get instance() {
        return kernel.instance;
      },
      get sessions() {
        return kernel.sessions;
      },
      get sandbox() {
        return kernel.sandbox;
      },
      get approvals() {
        return kernel.approvals;
      },
      get runs() {
        return kernel.runs;
      },
      createAgent: (spec: AgentSpec) => this.createAgent(spec),
      getAgent: (id: string) => this.getAgent(id),
      agent: (id: string) => this.agent(id),
      listAgents: () => this.listAgents(),
      destroyAgent: (id: string) => this.destroyAgent(id),
      provide: (name: string, value: unknown) => this.#services.provide(name, value, plugin.name),
      service: ((name: string) => this.#services.get(name, plugin.name)) as KernelView['service'],
      hasService: (name: string) => this.#services.has(name),
      [KERNEL_OF]: this,
      [PLUGIN_OF]: plugin.name,
    });
  }

  // Kernel hooks, tap-only; in `agentCreated` the plugin gets the agent with its hooks attributed too.
  #hookViews(plugin: string): KernelView['hooks'] {
    const withAgentView = (args: unknown[]) => {
      const ctx = args[0] as { agent: Agent };
      return [{ ...ctx, agent: agentView(ctx.agent, plugin) }, ...args.slice(1)];
    };
    return Object.freeze({
      ...tapViews(this.hooks, plugin),
      agentCreated: tapView(this.hooks.agentCreated, 'agentCreated', plugin, withAgentView),
    });
  }

  /** @internal */
  [REGISTER_OWNED_HOOKS](owner: string, hooks: Record<string, TappableHook>): void {
    this.#owned.set(owner, hooks);
  }

  /** Plugins in apply order and, per hook, its taps in call order. */
  inspect(): KernelInspection {
    const hooks: KernelInspection['hooks'] = {};
    const list = (name: string, hook: TappableHook) => {
      hooks[name] = hook.taps.map((tap) => ({
        name: tap.name,
        ...(tap.plugin === undefined ? {} : { plugin: tap.plugin }),
        type: tap.type,
        stage: tap.stage ?? 0,
      }));
    };
    for (const [name, hook] of Object.entries(this.hooks)) list(name, hook);
    for (const [owner, catalog] of this.#owned)
      for (const [name, hook] of Object.entries(catalog)) list(`${owner}.${name}`, hook);
    return {
      plugins: this.#plugins.map((p) => ({
        name: p.name,
        ...(p.version === undefined ? {} : { version: p.version }),
        ...(p.enforce === undefined ? {} : { enforce: p.enforce }),
        dependencies: [...(p.dependencies ?? [])],
      })),
      hooks,
    };
  }

  /**
   * Fires `beforeClose` then `close`, once: every call returns the same promise, so a second caller
   * waits for the first to finish. After a failed boot (which already ran them) it only marks the kernel closed.
   */
  close(reason = 'close'): Promise<void> {
    this.#closing ??= this.#close(reason);
    return this.#closing;
  }

  async #close(reason: string): Promise<void> {
    // Closing mid-boot waits for the boot to settle: plugins still starting things (MCP servers)
    // would otherwise start them after the close hooks ran, and nothing would stop them.
    if (this.#state === 'booting') await this.#booting;
    const bootFailed = this.#state === 'failed';
    this.#state = 'closing';
    try {
      if (!bootFailed) await this.#runClose(reason);
    } finally {
      this.#state = 'closed';
    }
  }

  async #runClose(reason: string): Promise<void> {
    this.#toolRefresh.stop();
    await this.hooks.beforeClose.promise({ reason });
    // What still runs (the server drained gracefully in beforeClose) is cancelled and its end recorded.
    await this.#runs
      ?.drain(0)
      .catch((error: unknown) => this.logger.warn(`stopping runs: ${errorMessage(error)}`));
    for (const id of [...this.#agents.keys()]) await this.destroyAgent(id);
    // Their cancelled runs' approvals are being stored: let that finish before the store closes.
    await this.#approvals?.flush();
    try {
      await this.hooks.close.promise({ reason });
    } finally {
      await this.models.close();
      await this.#instance?.stop();
      await this.#approvals?.close();
      if (!this.#options.bus) await this.#bus?.close();
      await this.#store?.close();
      // Last: the spans of the runs stopped above are sent before the process may exit.
      await this.#stopTelemetry();
    }
  }

  /** `telemetry` in the config: spans with or without content, and exported over OTLP when asked. */
  #startTelemetry(): void {
    const telemetry = this.#config.telemetry;
    const settings = otlpSettings(telemetry);
    if (telemetry === undefined && !settings) return;
    if (settings) this.#traceExport = startTraceExport(settings, this.logger);
    this.#tracing = true;
    tracingChanged({ includeContent: telemetry?.includeContent === true });
  }

  async #stopTelemetry(): Promise<void> {
    if (!this.#tracing) return;
    this.#tracing = false;
    const running = this.#traceExport;
    this.#traceExport = undefined;
    try {
      await running?.shutdown();
    } finally {
      tracingChanged({ includeContent: false });
    }
  }

  /** Provides a service to the plugins (e.g. one made outside them, in a test). */
  provide<N extends ServiceName>(name: N, value: ServiceOf<N>): void {
    this.#services.provide(name, value);
  }

  /** A service a plugin provides (`kernel.service('hubos')`); throws naming the plugin to add when none does. */
  service<N extends ServiceName>(name: N): ServiceOf<N> {
    return this.#services.get(name) as ServiceOf<N>;
  }

  hasService(name: ServiceName): boolean {
    return this.#services.has(name);
  }

  /** The store sessions and plugins keep their data in (open after boot). */
  get store(): Store {
    return this.#ready(this.#store, 'store');
  }

  /**
   * What joins this instance to the others of its service (`bus` in the config): messages,
   * a run's events, rate-limit counters and the run queue. In-process unless Redis is configured.
   */
  get bus(): Bus {
    return this.#ready(this.#bus, 'bus');
  }

  /** This process as an instance of the service: its id and the heartbeat that says it is alive. */
  get instance(): Instance {
    return this.#ready(this.#instance, 'instance');
  }

  get sessions(): Sessions {
    return this.#ready(this.#sessions, 'sessions');
  }

  get sandbox(): Sandbox {
    return this.#ready(this.#sandbox, 'sandbox');
  }

  /**
   * Tool calls waiting for a human (the `ask` of the permission policy), across its agents:
   * `list(runId?)`, `get()`, `decide(runId, callId, { approved, reason })`. Kept in the store.
   */
  get approvals(): Approvals {
    return this.#ready(this.#approvals, 'approvals');
  }

  /**
   * The run engine, one per kernel (open after boot): every run of the kernel's agents, workflows
   * and teams, whichever face started it, recorded in the store's runs tables, its events on the
   * bus. A server registers the agents it serves (`serveAgents`) and takes queued runs (`work`);
   * the kernel drains it at close.
   */
  get runs(): RunEngine {
    return this.#ready(this.#runs, 'runs');
  }

  /** The config's permission policy: what calls that bring none of their own (MCP, workflows) are decided by. */
  #policy(): Policy {
    if (this.#configPolicy?.config !== this.#config)
      this.#configPolicy = { config: this.#config, policy: createPolicy(this.#config.permissions) };
    return this.#configPolicy.policy;
  }

  #ready<T>(value: T | undefined, what: string): T {
    if (value === undefined)
      throw new HubosError('KERNEL_STATE', `kernel.${what} is available once boot() has opened it`);
    return value;
  }

  /**
   * Builds an agent from a spec (its `name` is its id): fires `agentCreate` over the spec, selects
   * its tools (names or globs, then `resolveTools`), resolves its model, then fires `agentCreated`.
   */
  async createAgent(input: AgentSpec): Promise<Agent> {
    if (this.#state !== 'ready' && this.#state !== 'booting') {
      throw new HubosError(
        'KERNEL_STATE',
        `agents are created on a booted kernel (the kernel is ${this.#state})`,
      );
    }
    if (this.#agents.has(input.name)) {
      throw new HubosError('AGENT_EXISTS', `an agent named "${input.name}" already exists`, {
        details: { agent: input.name },
      });
    }
    const spec = (await this.hooks.agentCreate.promise({ ...input })) ?? input;
    const version = this.#toolsVersion;
    const selected = selectTools(spec.name, spec.tools ?? [], this.registry.list(), {
      reserved: this.registry.reservations(),
    });
    const { tools } = await this.hooks.resolveTools.promise({ agent: spec, tools: selected });
    const ref = spec.model ?? this.#config.model;
    if (ref === undefined) {
      throw new HubosError(
        'AGENT_INVALID',
        `agent "${spec.name}" has no model: set agents.${spec.name}.model or the top-level "model" in agent.config.ts`,
        { details: { agent: spec.name } },
      );
    }
    const model = resolveModelSetting(
      ref,
      (one) => this.#resolveModel(spec.name, one),
      `agent "${spec.name}"`,
    );
    const compaction = this.#compactionOf(spec, model);
    const guardrails = agentGuardrails(
      this.#globalGuardrails,
      resolveGuardrails(this.guardrails, spec.guardrails, `agents.${spec.name}.guardrails`),
    );
    const toolResults = agentToolResults(spec, tools, this.#config.context);
    this.#prices ??= priceTable(this.#config.pricing);
    if (this.#agents.has(spec.name)) {
      throw new HubosError('AGENT_EXISTS', `an agent named "${spec.name}" already exists`, {
        details: { agent: spec.name },
      });
    }
    const agent = new Agent({
      spec,
      model,
      tools,
      sessions: this.sessions,
      store: this.store,
      ...(this.#config.permissions ? { permissions: this.#config.permissions } : {}),
      approvals: this.approvals,
      runToolCall: this.tools.runner,
      resolveModel: (other) => this.#runModel(spec.name, other),
      ...(guardrails ? { guardrails } : {}),
      prices: this.#prices,
      ...(toolResults ? { toolResults } : {}),
      ...(compaction ? { compaction } : {}),
    });
    this.#agents.set(agent.id, agent);
    try {
      await this.hooks.agentCreated.promise({ agent });
    } catch (error) {
      this.#agents.delete(agent.id);
      throw error;
    }
    if (this.#toolsVersion !== version) this.#toolRefresh.schedule();
    return agent;
  }

  /** An agent's compaction (its `context` over the config's); a window it needs but nobody knows fails its build. */
  #compactionOf(spec: AgentSpec, model: LanguageModel): Compaction | undefined {
    const config = resolveCompaction(spec.name, spec.context, this.#config.context);
    if (!config) return undefined;
    this.#modelLimits ??= modelLimitsTable(this.#config.modelLimits);
    const compaction = new Compaction({
      agent: spec.name,
      config,
      limits: this.#modelLimits,
      store: this.store,
      persist: this.#config.sessions?.persist !== false,
      resolveModel: (other) => this.#runModel(spec.name, other),
    });
    compaction.check(modelRefOf(model));
    return compaction;
  }

  /**
   * Selects every live agent's tools again (its spec's `tools`, then `resolveTools`) after the
   * registry changed. A pattern that now matches nothing selects nothing rather than failing.
   */
  async #refreshAgentTools(): Promise<void> {
    for (const agent of [...this.#agents.values()]) {
      if (this.#state === 'closing' || this.#state === 'closed') return;
      try {
        const selected = selectTools(agent.id, agent.spec.tools ?? [], this.registry.list(), {
          allowUnmatched: true,
        });
        const { tools } = await this.hooks.resolveTools.promise({ agent: agent.spec, tools: selected });
        if (this.#agents.get(agent.id) === agent && !sameTools(agent.tools, tools)) agent[SET_TOOLS](tools);
      } catch (error) {
        this.logger.warn(
          `agent "${agent.id}" keeps its tools: selecting them again after a registry change failed: ${errorMessage(error)}`,
        );
      }
    }
  }

  /**
   * The model a run asks for by reference (`RunOptions.model`): the very model an agent of this
   * kernel runs on under that reference (one given as an object has no provider to make it again),
   * else the one `kernel.models` makes.
   */
  #runModel(agent: string, ref: string): LanguageModel {
    for (const other of this.#agents.values()) if (other.modelRef === ref) return other.model;
    const model = this.#resolveModel(agent, ref);
    return isFallbackModel(model) ? model : fallbackModel([model]);
  }

  /** A reference through `kernel.models`; a model object as it is (an AI SDK one wrapped). */
  #resolveModel(agent: string, ref: string | ModelObject) {
    if (typeof ref !== 'string' && !isModelObject(ref)) {
      throw new HubosError(
        'AGENT_INVALID',
        `agent "${agent}": "model" must be a reference ('openai:gpt-4.1-mini'), a LanguageModel or an AI SDK language model`,
        { details: { agent } },
      );
    }
    try {
      const model = typeof ref === 'string' ? this.models.resolve(ref) : toLanguageModel(ref);
      // A chain's own models were limited when it was made.
      return this.#rateLimiter && !isFallbackModel(model) ? this.#rateLimiter.wrap(model) : model;
    } catch (error) {
      const name = typeof ref === 'string' ? ref : `${ref.provider}:${ref.modelId}`;
      const message = `agent "${agent}": model "${name}": ${errorMessage(error)}`;
      throw new HubosError(HubosError.is(error) ? error.code : 'AGENT_INVALID', message, {
        cause: error,
        details: { agent },
      });
    }
  }

  /** The agent with this id, or undefined. */
  getAgent(id: string): Agent | undefined {
    return this.#agents.get(id);
  }

  /** The agent with this id; throws AGENT_NOT_FOUND naming the known ones. */
  agent(id: string): Agent {
    const agent = this.#agents.get(id);
    if (!agent) {
      const known = [...this.#agents.keys()].join(', ') || 'none';
      throw new HubosError(
        'AGENT_NOT_FOUND',
        `no agent named "${id}"${didYouMean(id, this.#agents.keys())} (agents: ${known})`,
        {
          details: { agent: id },
        },
      );
    }
    return agent;
  }

  listAgents(): Agent[] {
    return [...this.#agents.values()];
  }

  /** Cancels the agent's runs, fires `agentDestroy` and frees it; false if there was no such agent. */
  async destroyAgent(id: string): Promise<boolean> {
    const agent = this.#agents.get(id);
    if (!agent) return false;
    this.#agents.delete(id);
    agent.cancelAll();
    await this.hooks.agentDestroy.promise({ agent });
    return true;
  }
}

/** The agent as one plugin sees it: the same agent, its hooks' taps attributed to the plugin. */
function agentView(agent: Agent, plugin: string): Agent {
  const hooks = tapViews(agent.hooks, plugin);
  return new Proxy(agent, {
    get(target, key) {
      if (key === 'hooks') return hooks;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function sameTools(a: readonly Tool[], b: readonly Tool[]): boolean {
  return a.length === b.length && a.every((tool, i) => tool === b[i]);
}

export function createKernel(options: KernelOptions = {}): Kernel {
  return new Kernel(options);
}
