import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import {
  type Agent,
  type Approvals,
  HubosError,
  type KernelView,
  MemoryStore,
  type Store,
} from '../../core/index.ts';
import { buildApp } from './app.ts';
import { getHubOSHooks } from './hooks.ts';
import { HttpError } from './http-error.ts';
import { type HubOSServerOptions, isLoopback } from './options.ts';
import type { RouteDoc } from './route-docs.ts';
import { RunManager } from './runs.ts';

/** A multi-agent team HubOS can serve (Stars): run a task, optionally as a stream of events. */
export interface StarsLike {
  run(task: string, options: { signal?: AbortSignal }): Promise<unknown>;
  stream?(task: string, options: { signal?: AbortSignal }): AsyncIterable<unknown>;
}

/** A declared workflow HubOS can serve (the workflows plugin's `Workflow`). */
export interface WorkflowLike {
  readonly description?: string | undefined;
  /** Its steps as data a page can draw. */
  describe(): unknown;
  run(input: unknown, options: { signal?: AbortSignal; runId?: string }): Promise<unknown>;
  stream(input: unknown, options: { signal?: AbortSignal; runId?: string }): AsyncIterable<unknown>;
  resume(runId: string, options: { signal?: AbortSignal }): Promise<unknown>;
  resumeStream(runId: string, options: { signal?: AbortSignal }): AsyncIterable<unknown>;
  getRun(runId: string): Promise<unknown | undefined>;
  listRuns(limit?: number): Promise<unknown[]>;
  cancel(runId: string): boolean;
}

export interface HubOSOptions extends HubOSServerOptions {
  /** Shown in /health, the OpenAPI title and A2A cards. */
  name?: string;
  /** The kernel whose plugins may add routes (`getHubOSHooks(kernel).routes`) and whose store keeps runs. */
  kernel?: KernelView;
  /** Where run records are kept (default: the kernel's store, else memory). */
  store?: Store;
  /** Agent lifecycle manager, when one is in use (its routes arrive with it). */
  cosmos?: unknown;
  version?: string;
}

/** The HubOS server: agents and teams over REST + SSE (and, through its route modules, A2A and AG-UI). */
export class HubOS {
  readonly name: string;
  readonly version: string;
  readonly app = new Hono();
  readonly runs: RunManager;
  readonly stars = new Map<string, StarsLike>();
  readonly workflows = new Map<string, WorkflowLike>();
  readonly #passWhileStopping: ((c: Context) => boolean)[] = [];
  readonly docs: RouteDoc[] = [];
  readonly options: HubOSOptions;
  readonly #agents = new Map<string, Agent>();
  #init: Promise<void> | undefined;
  #server: ServerType | undefined;
  #url: string | undefined;
  #stopping: Promise<void> | undefined;

  constructor(options: HubOSOptions = {}) {
    this.options = options;
    this.name = options.name ?? 'hubos';
    this.version = options.version ?? '0.0.0';
    this.runs = new RunManager(options.store ?? options.kernel?.store ?? new MemoryStore());
  }

  get apiPrefix(): string {
    return this.options.apiPrefix ?? '/api';
  }

  get requestTimeoutMs(): number {
    return this.options.requestTimeoutMs ?? 300_000;
  }

  get apiKeys(): string[] {
    const fromEnv = (process.env.HUBOS_API_KEYS ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter(Boolean);
    return [...(this.options.apiKeys ?? []), ...fromEnv];
  }

  get authRequired(): boolean {
    return this.apiKeys.length > 0;
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

  registerStars(name: string, stars: StarsLike): this {
    this.stars.set(name, stars);
    return this;
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

  /** Serves a workflow under `/api/workflows/<name>`. */
  registerWorkflow(name: string, workflow: WorkflowLike): this {
    if (!/^[A-Za-z0-9_-]+$/.test(name) || name === 'runs')
      throw new HubosError(
        'CONFIG_INVALID',
        `cannot serve a workflow named "${name}": use letters, digits, "_" or "-" (and not "runs", which names the runs route)`,
      );
    if (this.workflows.has(name))
      throw new HubosError('CONFIG_INVALID', `HubOS already serves a workflow named "${name}"`);
    this.workflows.set(name, workflow);
    return this;
  }

  listAgents(): Agent[] {
    return [...this.#agents.values()];
  }

  /** The served agent with this name; a 404 `AGENT_NOT_FOUND` error otherwise. */
  agent(name: string): Agent {
    const agent = this.#agents.get(name);
    if (!agent) {
      throw new HttpError(
        404,
        'AGENT_NOT_FOUND',
        `no agent "${name}" (agents: ${[...this.#agents.keys()].join(', ') || 'none'})`,
      );
    }
    return agent;
  }

  /** Where served agents' tool calls wait for approval: the kernel's, else the first agent's. */
  get approvals(): Approvals | undefined {
    return this.options.kernel?.approvals ?? this.listAgents()[0]?.approvals;
  }

  /** Adds routes to the OpenAPI document. */
  document(...docs: RouteDoc[]): void {
    this.docs.push(...docs);
  }

  /** Builds the app: middleware, the built-in routes, then the routes plugins add. Runs once. */
  init(): Promise<void> {
    this.#init ??= buildApp(this).then(async () => {
      if (this.options.kernel)
        await getHubOSHooks(this.options.kernel).routes.promise({ app: this.app, hubos: this });
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
    await this.init();
    const port = this.options.port ?? (process.env.PORT ? Number(process.env.PORT) : 3000);
    const server = await new Promise<ServerType>((resolve, reject) => {
      const created = serve({ fetch: this.app.fetch, port, hostname: host }, () => resolve(created));
      created.once('error', reject);
    });
    this.#server = server;
    const address = server.address() as AddressInfo;
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.#url = `http://${shown}:${address.port}`;
    if (this.options.kernel) {
      await getHubOSHooks(this.options.kernel).listening.promise({
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
        await getHubOSHooks(this.options.kernel).beforeStop.promise({ reason, hubos: this });
      await this.runs.drain(this.options.shutdownTimeoutMs ?? 10_000);
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
