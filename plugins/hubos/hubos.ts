import type { AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import type { Principal } from '../../core/index.ts';
import {
  type Agent,
  type Approvals,
  type Bus,
  HubosError,
  hubosVersion,
  Instance,
  type KernelView,
  LocalBus,
  MemoryStore,
  RunEngine,
  type Store,
} from '../../core/index.ts';
import { didYouMean, tendBesideRuns } from '../../core/internal.ts';
import { type AcceptedKey, resolveApiKeys } from './api-keys.ts';
import { buildApp } from './app.ts';
import { getHubOSHooks } from './hooks.ts';
import type { HubOSEnv } from './kit/principal.ts';
import { type RouteDoc, routeDocsOf } from './kit/route-doc.ts';
import { listenError, portFromEnv } from './listen-port.ts';
import type { AllowedHosts } from './middleware/host-check.ts';
import { type OriginPolicy, originAllowed } from './middleware/origin-check.ts';
import { type HubOSServerOptions, isLoopback } from './options.ts';
import { isPublicPath } from './public-paths.ts';
import { pruneBesideRuns } from './retention.ts';

export interface HubOSOptions extends HubOSServerOptions {
  /** Shown in /health, the OpenAPI title and A2A cards. */
  name?: string;
  /** The kernel whose plugins may add routes (`getHubOSHooks(kernel).routes`) and whose store keeps runs. */
  kernel?: KernelView;
  /** Where run records are kept (default: the kernel's store, else memory). */
  store?: Store;
  /** What joins it to the other instances (default: the kernel's bus, else one of its own). */
  bus?: Bus;
  /** Shown in the OpenAPI info, A2A cards and MCP `initialize` (default: HubOS's own version). */
  version?: string;
}

/** The HubOS server: agents and teams over REST + SSE (and, through its route modules, A2A and AG-UI). */
export class HubOS {
  readonly name: string;
  readonly version: string;
  readonly app = new Hono();
  readonly runs: RunEngine;
  readonly #passWhileStopping: ((c: Context) => boolean)[] = [];
  readonly #agentGuards: ((agent: Agent, principal: Principal) => boolean)[] = [];
  readonly docs: RouteDoc[] = [];
  readonly options: HubOSOptions;
  readonly #agents = new Map<string, Agent>();
  #init: Promise<void> | undefined;
  #server: ServerType | undefined;
  #url: string | undefined;
  #stopping: Promise<void> | undefined;
  #keys: readonly AcceptedKey[] | undefined;
  #originPolicy: OriginPolicy | undefined;
  readonly #instance: Instance;
  readonly #unserve: () => void;

  constructor(options: HubOSOptions = {}) {
    this.options = options;
    this.name = options.name ?? 'hubos';
    this.version = options.version ?? hubosVersion();
    const kernel = options.kernel;
    // With a kernel on the same store, its runs are the kernel's engine's; a store of its own (or no
    // kernel) gives it an engine of its own on that store.
    const shared = kernel !== undefined && (options.store === undefined || options.store === kernel.store);
    const store = options.store ?? new MemoryStore();
    this.#instance = shared ? kernel.instance : new Instance(store, 15_000);
    this.runs = shared ? kernel.runs : this.#ownEngine(store);
    this.#unserve = this.runs.serveAgents((name) => this.#agents.get(name));
    // A2A tasks kept beside runs are pruned with them, at the engine's tick.
    pruneBesideRuns(this);
  }

  // The engine of a HubOS whose runs are not its kernel's: what the kernel does for its own, done here.
  #ownEngine(store: Store): RunEngine {
    const kernel = this.options.kernel;
    const warn = (message: string) => kernel?.logger.warn(message);
    const engine = new RunEngine({
      store,
      bus: this.options.bus ?? kernel?.bus ?? new LocalBus(),
      instance: this.#instance,
      onError: warn,
      retention: kernel?.config.runs?.retention,
      eventsTtlMs: kernel?.config.runs?.eventsTtlMs,
      durability: kernel?.config.runs?.durability,
      recordSteps: kernel?.config.runs?.recordSteps,
    });
    // As the kernel's engine does: approvals an interrupted run waited for are abandoned, decided
    // ones and idle sessions pruned at its tick.
    tendBesideRuns(engine, {
      approvals: () => this.approvals,
      runsRetention: kernel?.config.runs?.retention,
      sessions: kernel && {
        store: kernel.store,
        retention: kernel.config.sessions?.retention,
      },
      onError: warn,
    });
    return engine;
  }

  /** How many queued runs this instance runs at once (`server.maxConcurrentRuns`). */
  get maxConcurrentRuns(): number {
    return this.options.maxConcurrentRuns ?? 16;
  }

  get apiPrefix(): string {
    return this.options.apiPrefix ?? '/api';
  }

  get requestTimeoutMs(): number {
    return this.options.requestTimeoutMs ?? 300_000;
  }

  /** The keys the server accepts, each with its principal (`server.apiKeys`, then HUBOS_API_KEYS). */
  get apiKeys(): readonly AcceptedKey[] {
    this.#keys ??= resolveApiKeys(this.options.apiKeys ?? [], process.env.HUBOS_API_KEYS);
    return this.#keys;
  }

  get authRequired(): boolean {
    return this.apiKeys.length > 0;
  }

  /** `server.publicUrl` (else HUBOS_PUBLIC_URL) without its trailing slash, when set. */
  get publicUrl(): string | undefined {
    const url = this.options.publicUrl ?? process.env.HUBOS_PUBLIC_URL;
    if (url === undefined || url === '') return undefined;
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      throw new HubosError(
        'CONFIG_INVALID',
        `server.publicUrl must be an http(s) URL such as "https://agents.example.com", not ${JSON.stringify(url)}`,
      );
    return url.replace(/\/+$/, '');
  }

  /** Where absolute URLs (A2A cards) point: the public URL, else the one listened on; never a request's Host. */
  get baseUrl(): string {
    return this.publicUrl ?? this.#url ?? `http://127.0.0.1:${this.options.port ?? 3000}`;
  }

  /** Which web pages may send requests that change state: the server's own, the public URL's, `server.cors`'s. */
  get originPolicy(): OriginPolicy {
    // Built once: /mcp asks it on every request.
    if (!this.#originPolicy) {
      const publicUrl = this.publicUrl;
      this.#originPolicy = {
        cors: this.options.cors?.origin,
        publicOrigin: publicUrl && new URL(publicUrl).origin,
      };
    }
    return this.#originPolicy;
  }

  /**
   * Whether a browser page at `origin` may talk to the server (for endpoints that check reads too,
   * as MCP asks): its own origin under an allowed Host, the public URL's, or one `server.cors` lists.
   */
  allowsOrigin(origin: string, c: Context): boolean {
    return originAllowed(origin, c, this.originPolicy);
  }

  /** The `Host` names answered (besides loopback names and IP addresses, always allowed). */
  get allowedHosts(): AllowedHosts {
    const configured = this.options.allowedHosts;
    if (configured === true) return true;
    const hosts = [...(configured ?? [])];
    const bind = this.options.host;
    if (bind && bind !== '0.0.0.0' && bind !== '::') hosts.push(bind);
    const publicUrl = this.publicUrl;
    if (publicUrl) hosts.push(new URL(publicUrl).hostname);
    return hosts;
  }

  get stopping(): boolean {
    return this.#stopping !== undefined;
  }

  /** The URL it listens on, once `serve()` resolved. */
  get url(): string | undefined {
    return this.#url;
  }

  registerAgent(name: string, agent: Agent): this {
    if (this.#agents.has(name))
      throw new HubosError('AGENT_EXISTS', `HubOS already serves an agent named "${name}"`);
    this.#agents.set(name, agent);
    return this;
  }

  unregisterAgent(name: string): boolean {
    return this.#agents.delete(name);
  }

  /**
   * Requests that still get through while the server drains (everything else answers 503): what
   * running work needs to finish, such as an MCP session's answers to a pending approval.
   */
  passWhileStopping(test: (c: Context) => boolean): void {
    this.#passWhileStopping.push(test);
  }

  /** Whether a request gets through while the server is stopping. */
  passesWhileStopping(c: Context): boolean {
    return c.req.path === '/health' || this.#passWhileStopping.some((test) => test(c));
  }

  /** The served agents; given a caller, only those it may use (see `guardAgents`). */
  listAgents(principal?: Principal): Agent[] {
    const agents = [...this.#agents.values()];
    return principal ? agents.filter((agent) => this.mayUse(agent, principal)) : agents;
  }

  /**
   * The served agent with this name; a 404 `AGENT_NOT_FOUND` error otherwise, and, given a caller,
   * for an agent hidden from it, which then does not exist for it.
   */
  agent(name: string, principal?: Principal): Agent {
    const agent = this.#agents.get(name);
    if (!agent || (principal && !this.mayUse(agent, principal))) {
      const known = this.listAgents(principal).map((served) => served.id);
      throw new HubosError(
        'AGENT_NOT_FOUND',
        `no agent "${name}"${didYouMean(name, known)} (agents: ${known.join(', ') || 'none'})`,
      );
    }
    return agent;
  }

  /**
   * Adds a rule saying which callers may use an agent: one answering false hides the agent from
   * that caller, who then finds it listed nowhere and gets 404 running it (REST, A2A, AG-UI).
   * Cosmos uses it for the agents a key creates.
   */
  guardAgents(mayUse: (agent: Agent, principal: Principal) => boolean): void {
    this.#agentGuards.push(mayUse);
  }

  /** Whether no rule added with `guardAgents` hides this agent from this caller. */
  mayUse(agent: Agent, principal: Principal): boolean {
    return this.#agentGuards.every((mayUse) => mayUse(agent, principal));
  }

  /** Where served agents' tool calls wait for approval: the kernel's, else the first agent's. */
  get approvals(): Approvals | undefined {
    return this.options.kernel?.approvals ?? this.listAgents()[0]?.approvals;
  }

  /** Adds routes to the OpenAPI document (`describeRoute` on a mounted app does it for you). */
  document(...docs: RouteDoc[]): void {
    this.docs.push(...docs);
  }

  /**
   * Mounts a sub-app at `path` behind the server's middleware, its described routes documented.
   * Refuses a path served without an API key, and a route another one already answers.
   */
  mount(path: string, app: Hono<HubOSEnv>): void {
    if (isPublicPath(path) || isPublicPath(`${path.replace(/\/$/, '')}/`))
      throw new HubosError(
        'PLUGIN_INVALID',
        `cannot mount routes at "${path}": it is served without an API key (the page, /health, the A2A cards); mount them under ${this.apiPrefix}`,
      );
    const taken = new Set(this.app.routes.map((route) => `${route.method} ${route.path}`));
    for (const route of app.routes) {
      const full = route.path === '/' ? path : `${path.replace(/\/$/, '')}${route.path}`;
      const clash = [route.method, 'ALL'].find((method) => taken.has(`${method} ${full}`));
      if (clash || (route.method === 'ALL' && [...taken].some((key) => key.endsWith(` ${full}`))))
        throw new HubosError(
          'PLUGIN_INVALID',
          `cannot mount ${route.method} ${full}: the server already answers it; mount the routes at another path`,
        );
    }
    this.app.route(path, app);
    this.document(...routeDocsOf(app, path));
  }

  /** Builds the app: middleware, the built-in routes, then the routes plugins add. Runs once. */
  init(): Promise<void> {
    this.#init ??= buildApp(this).then(async () => {
      if (this.options.kernel)
        await getHubOSHooks.owned(this.options.kernel).routes.promise({
          app: this.app,
          api: this.apiPrefix,
          hubos: this,
          mount: (path, app) => this.mount(path, app),
        });
    });
    return this.#init;
  }

  /** Listens on host:port (port 0 picks a free one); resolves with the URL once listening. */
  async serve(): Promise<string> {
    const host = this.options.host ?? '127.0.0.1';
    if (!isLoopback(host) && !this.authRequired) {
      throw new HubosError(
        'CONFIG_INVALID',
        `refusing to listen on ${host} without API keys: set server.apiKeys or HUBOS_API_KEYS, or bind to 127.0.0.1`,
      );
    }
    // The Node adapter loads only to listen: importing it (node:http) costs every command that
    // builds the server without serving, `hubos run` and `hubos mcp` among them.
    const adapter = import('@hono/node-server');
    await this.init();
    const { serve } = await adapter;
    const port = this.options.port ?? portFromEnv() ?? 3000;
    const server = await new Promise<ServerType>((resolve, reject) => {
      const created = serve({ fetch: this.app.fetch, port, hostname: host }, () => resolve(created));
      created.once('error', (error) => reject(listenError(error, host, port)));
    });
    this.#server = server;
    // Serving makes it an instance of the service: a heartbeat, the runs of dead instances marked,
    // queued runs taken.
    await this.#instance.start();
    await this.runs.sweep();
    await this.runs.work(this.maxConcurrentRuns);
    const address = server.address() as AddressInfo;
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.#url = `http://${shown}:${address.port}`;
    if (this.options.kernel) {
      await getHubOSHooks.owned(this.options.kernel).listening.promise({
        url: this.#url,
        host,
        port: address.port,
        hubos: this,
      });
    }
    return this.#url;
  }

  /**
   * Graceful stop: refuses new work, lets running runs finish until `shutdownTimeoutMs`, cancels
   * the rest, then closes the server. Safe to call more than once.
   */
  close(reason = 'close'): Promise<void> {
    this.#stopping ??= (async () => {
      if (this.options.kernel)
        await getHubOSHooks.owned(this.options.kernel).beforeStop.promise({ reason, hubos: this });
      await this.runs.drain(this.options.shutdownTimeoutMs ?? 10_000);
      this.#unserve();
      // Its runs have ended: the heartbeat goes, unless the kernel owns it (it stops it at close).
      if (this.#instance !== this.options.kernel?.instance) await this.#instance.stop();
      const server = this.#server;
      if (server) {
        // Finished runs may still be writing their responses: close idle connections now, the rest shortly.
        const http = server as { closeIdleConnections?: () => void; closeAllConnections?: () => void };
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => http.closeAllConnections?.(), 2_000);
          server.close(() => {
            clearTimeout(force);
            resolve();
          });
          http.closeIdleConnections?.();
        });
      }
    })();
    return this.#stopping;
  }
}
