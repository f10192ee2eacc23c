import { resolve } from 'node:path';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import {
  errorMessage,
  HubosError,
  type Logger,
  type Registry,
  type Store,
  type ToolContext,
} from '../../../core/index.ts';
import type { McpConfig, McpRestartConfig, McpServerConfig } from '../config.ts';
import { AuthorizationError } from './authorization-error.ts';
import { DEFAULT_RESTART, givesUp, retryDelay } from './backoff.ts';
import { type CallInFlight, CallsInFlight } from './calls-in-flight.ts';
import { withheldEnvHint } from './child-env.ts';
import {
  isConnectionError,
  messageWithCause,
  StartTimeoutError,
  startFailureReason,
} from './failure-reason.ts';
import { type HubosOAuthProvider, oauthProviderFor } from './oauth-provider.ts';
import { samplingPolicy } from './sampling.ts';
import type { ServerRequestsContext } from './server-requests.ts';
import { closeSession, listTools, openSession, type Session } from './session.ts';
import type { McpServerState, McpServerStatus } from './status.ts';
import { formatDelay, sleep, withTimeout } from './timeouts.ts';
import { callServerTool, notConnectedMessage } from './tool-call.ts';
import { ToolSync } from './tool-sync.ts';
import { describeTarget, isHttp } from './transport.ts';

export const DEFAULT_START_TIMEOUT_MS = 30_000;
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

export interface ConnectionDeps {
  registry: Registry;
  logger: Logger;
  /** Where a stdio server's `cwd` is resolved from: the config file's folder. */
  baseDir: string;
  restart?: McpRestartConfig;
  /** Sent as the client's version in initialize. */
  version: string;
  /** Where OAuth tokens and registrations are kept. */
  store: Store;
  /** The sandbox root: the root servers are told about (`roots/list`). */
  workspaceRoot: string;
  /** Told when a person must authorize HubOS (see McpConfig.onAuthorize). */
  onAuthorize?: McpConfig['onAuthorize'];
}

/**
 * One configured MCP server: connects, registers its tools, follows their changes, and reconnects
 * with exponential backoff when a start fails or the connection is lost. Its tools stay registered
 * while it is down; their calls then fail with a message saying so.
 */
export class McpServerConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly prefix: string;
  readonly #deps: ConnectionDeps;
  readonly #sync: ToolSync;
  /** The server's tools that run only as tasks (`execution.taskSupport: 'required'`). */
  #taskTools = new Set<string>();
  readonly #closing = new Set<Promise<void>>();
  #state: McpServerState;
  #since = Date.now();
  #error: string | undefined;
  #stderr: string[] | undefined;
  #failures = 0;
  /** The failures in a row before the last connect: restored when that connection dies young. */
  #failuresBeforeReady = 0;
  #readyAt = 0;
  #nextRetryAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #session: Session | undefined;
  #first: Promise<void> | undefined;
  #release: (() => void) | undefined;
  #closed = false;
  #relisting = false;
  #relistAgain = false;
  /** A list_changed came while the attempt was still starting: list again once ready. */
  #relistWhenReady = false;
  #verifying = false;
  #serverInfo: { name: string; version: string } | undefined;
  readonly #calls = new CallsInFlight();
  readonly #requests: ServerRequestsContext;
  /** HTTP servers that may ask for OAuth. */
  readonly #oauth: HubosOAuthProvider | undefined;
  /** Aborted once the connection closes: a wait for a person's authorization ends. */
  readonly #stopping = new AbortController();

  constructor(name: string, config: McpServerConfig, deps: ConnectionDeps) {
    this.name = name;
    this.config = config;
    this.prefix = config.prefix ?? name;
    this.#deps = deps;
    this.#state = config.enabled === false ? 'stopped' : 'starting';
    this.#sync = new ToolSync({
      registry: deps.registry,
      logger: deps.logger,
      server: name,
      prefix: this.prefix,
      handlerFor: (tool) => (ctx, tc) => this.#call(tool, tc, ctx.signal),
    });
    this.#requests = {
      server: name,
      calls: this.#calls,
      sampling: samplingPolicy(config.sampling),
      elicitation: config.elicitation !== false,
      workspaceRoot: deps.workspaceRoot,
      logger: deps.logger,
    };
    this.#oauth = oauthProviderFor(name, config, deps);
  }

  get state(): McpServerState {
    return this.#state;
  }

  get #callTimeoutMs(): number {
    return this.config.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  }

  get #startTimeoutMs(): number {
    return this.config.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  }

  /**
   * Reserves `<prefix>_` (agents naming its tools boot before it is up) and makes the first attempt.
   * Resolves when that attempt ended, either way; retries go on in the background.
   */
  start(): Promise<void> {
    if (this.#first) return this.#first;
    if (this.prefix !== '')
      this.#release = this.#deps.registry.reserve(`${this.prefix}_`, `mcp:${this.name}`);
    this.#first = this.config.enabled === false ? Promise.resolve() : this.#attempt();
    return this.#first;
  }

  /** The first attempt (resolved at once if none was made). */
  firstAttempt(): Promise<void> {
    return this.#first ?? Promise.resolve();
  }

  status(): McpServerStatus {
    return {
      name: this.name,
      transport: isHttp(this.config) ? 'http' : 'stdio',
      target: describeTarget(this.config),
      state: this.#state,
      since: new Date(this.#since).toISOString(),
      tools: this.#sync.list(),
      ...(this.#error !== undefined ? { error: this.#error } : {}),
      ...(this.#stderr?.length ? { stderr: [...this.#stderr] } : {}),
      attempts: this.#failures,
      ...(this.#nextRetryAt !== undefined ? { nextRetryAt: new Date(this.#nextRetryAt).toISOString() } : {}),
      ...(this.#serverInfo ? { server: { ...this.#serverInfo } } : {}),
      ...(this.#oauth?.pending ? { authorization: this.#oauth.pending } : {}),
    };
  }

  /** No more attempts (the kernel is closing); the connection stays until `close()`. */
  stopRetrying(): void {
    this.#closed = true;
    this.#stopping.abort();
    this.#oauth?.close();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#nextRetryAt = undefined;
  }

  /** Closes the connection (a stdio child is stopped and awaited) and stops retrying. */
  async close(): Promise<void> {
    this.stopRetrying();
    this.#release?.();
    this.#release = undefined;
    const session = this.#session;
    this.#session = undefined;
    if (session) this.#closeInBackground(session);
    this.#setState('closed');
    await Promise.all(this.#closing);
  }

  async #attempt(): Promise<void> {
    if (this.#closed) return;
    this.#nextRetryAt = undefined;
    this.#relistWhenReady = false;
    this.#setState('starting');
    let session: Session;
    try {
      session = openSession(this.config, {
        baseDir: this.#deps.baseDir,
        version: this.#deps.version,
        requests: this.#requests,
        oauth: this.#oauth,
        events: {
          onClose: (closed) => this.#onClose(closed),
          onError: (closed, error) => this.#onError(closed, error),
          onToolsChanged: (changed) => this.#relist(changed),
        },
      });
    } catch (error) {
      // A config the transport refuses (a URL it cannot parse): retrying would not help.
      await this.#fail(undefined, errorMessage(error), false, false);
      return;
    }
    this.#session = session;
    const ms = this.#startTimeoutMs;
    let tools: McpTool[];
    try {
      tools = await withTimeout(
        this.#handshake(session, ms),
        ms,
        () =>
          new StartTimeoutError(
            `it did not finish starting within ${formatDelay(ms)} (startTimeoutMs)${isHttp(this.config) ? '' : withheldEnvHint(this.config.env)}`,
          ),
      );
    } catch (error) {
      if (this.#session !== session) return; // closed meanwhile
      this.#session = undefined;
      if (error instanceof UnauthorizedError && this.#oauth?.pending)
        return this.#authorizeThenAttempt(session);
      if (error instanceof AuthorizationError) {
        await this.#fail(session, `it needs authorization: ${error.message}`, false, error.retry);
        return;
      }
      const cwd = isHttp(this.config) ? undefined : resolve(this.#deps.baseDir, this.config.cwd ?? '.');
      const kind = isHttp(this.config) ? 'http' : 'stdio';
      await this.#fail(session, startFailureReason(error, kind, describeTarget(this.config), cwd), false);
      return;
    }
    if (this.#session !== session) return;
    this.#oauth?.accepted();
    this.#applyTools(tools);
    this.#release?.();
    this.#release = undefined;
    const again = this.#failures > 0;
    this.#failuresBeforeReady = this.#failures;
    this.#failures = 0;
    this.#error = undefined;
    this.#stderr = undefined;
    this.#readyAt = Date.now();
    this.#setState('ready');
    if (this.#relistWhenReady) {
      this.#relistWhenReady = false;
      this.#relist(session);
    }
    const count = this.#sync.list().length;
    this.#deps.logger.info(
      `MCP server "${this.name}" is ${again ? 'ready again' : 'ready'}: ${count} tool${count === 1 ? '' : 's'}`,
    );
  }

  /**
   * The server asked for OAuth and a person is asked to authorize HubOS: wait for them (outside
   * `startTimeoutMs`), exchange the code, and connect again with the token.
   */
  async #authorizeThenAttempt(session: Session): Promise<void> {
    this.#closeInBackground(session);
    this.#setState('authorizing');
    try {
      await this.#authorize(session, this.#stopping.signal);
    } catch (error) {
      if (this.#closed) return;
      const retry = !(error instanceof AuthorizationError) || error.retry;
      await this.#fail(
        undefined,
        `it needs authorization, which was not completed: ${errorMessage(error)}`,
        false,
        retry,
      );
      return;
    }
    if (this.#closed) return;
    await this.#attempt();
  }

  /** Waits for the authorization a person is asked for, and exchanges its code on `session`'s transport. */
  #authorize(session: Session, signal: AbortSignal): Promise<void> {
    const transport = session.opened.transport as StreamableHTTPClientTransport;
    return this.#oauth!.authorize((code) => transport.finishAuth(code), signal);
  }

  async #handshake(session: Session, timeout: number): Promise<McpTool[]> {
    await session.client.connect(session.opened.transport, { timeout });
    this.#serverInfo = session.client.getServerVersion();
    return listTools(session.client, timeout);
  }

  // A start attempt handles its own failure; this is a connection lost once ready.
  #onClose(session: Session): void {
    if (session.closing || this.#session !== session || this.#state !== 'ready') return;
    const reason = session.opened.kind === 'stdio' ? 'the process exited' : 'the connection closed';
    void this.#lost(session, reason);
  }

  // Over HTTP nothing closes when the server goes away: an error makes us check it still answers.
  #onError(session: Session, error: Error): void {
    if (session.closing || this.#session !== session) return;
    this.#deps.logger.debug(`MCP server "${this.name}": ${errorMessage(error)}`);
    if (session.opened.kind !== 'http' || this.#state !== 'ready' || this.#verifying) return;
    this.#verifying = true;
    session.client
      .ping({ timeout: Math.min(this.#callTimeoutMs, 10_000) })
      .catch((failure) => {
        if (
          isConnectionError(failure) ||
          (failure instanceof McpError && failure.code === ErrorCode.RequestTimeout)
        )
          return this.#lost(session, `it stopped answering (${messageWithCause(failure)})`);
      })
      .finally(() => {
        this.#verifying = false;
      });
  }

  async #lost(session: Session, reason: string): Promise<void> {
    if (this.#session !== session || this.#closed) return;
    this.#session = undefined;
    // A connection that died before it lasted the longest backoff continues the failure streak.
    const stable = this.#deps.restart?.maxDelayMs ?? DEFAULT_RESTART.maxDelayMs;
    if (Date.now() - this.#readyAt < stable) this.#failures = this.#failuresBeforeReady;
    await this.#fail(session, reason, true);
  }

  async #fail(session: Session | undefined, reason: string, wasReady: boolean, retry = true): Promise<void> {
    if (session) this.#closeInBackground(session);
    if (this.#closed) return;
    this.#failures++;
    this.#error = reason;
    this.#stderr = undefined;
    const restart = this.#deps.restart;
    const done = !retry || givesUp(this.#failures, restart);
    if (!done) {
      const delay = retryDelay(this.#failures, restart);
      this.#nextRetryAt = Date.now() + delay;
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.#attempt();
      }, delay);
      this.#timer.unref();
    }
    this.#setState('failed');
    // The child's last stderr lines may still be on their way through the pipe.
    const failures = this.#failures;
    await sleep(20);
    const lines = session?.opened.stderr?.lines();
    if (this.#failures === failures && this.#state !== 'ready') this.#stderr = lines;
    if (this.#closed) return;
    const what = `MCP server "${this.name}" ${wasReady ? 'stopped' : 'failed to start'}: ${reason}`;
    const next = !retry
      ? '; fix its config and restart HubOS'
      : done
        ? `; giving up after ${failures} failed attempt(s) in a row (restart.maxAttempts)`
        : ` (attempt ${failures}); retrying in ${formatDelay(retryDelay(failures, restart))}`;
    const stderr = lines?.length ? `\n${lines.map((line) => `  stderr: ${line}`).join('\n')}` : '';
    this.#deps.logger.warn(`${what}${next}${stderr}`);
  }

  #closeInBackground(session: Session): void {
    const done = closeSession(session).finally(() => this.#closing.delete(done));
    this.#closing.add(done);
  }

  // notifications/tools/list_changed: list again (once more if another arrives meanwhile), then sync.
  #relist(session: Session): void {
    if (this.#session === session && this.#state === 'starting') {
      this.#relistWhenReady = true;
      return;
    }
    if (this.#relisting) {
      this.#relistAgain = true;
      return;
    }
    this.#relisting = true;
    void (async () => {
      try {
        do {
          this.#relistAgain = false;
          // The session of now, not the one whose notice started this: a notice for a new session
          // arriving while an old one's list was read must still be read.
          const current = this.#session;
          if (!current || this.#state !== 'ready') return;
          try {
            const tools = await listTools(current.client, this.#callTimeoutMs);
            if (this.#session === current) this.#applyTools(tools);
          } catch (error) {
            if (this.#session === current)
              this.#deps.logger.warn(
                `MCP server "${this.name}": reading its tools again after it changed them failed: ${errorMessage(error)}`,
              );
          }
        } while (this.#relistAgain);
      } finally {
        this.#relisting = false;
      }
    })();
  }

  #applyTools(tools: readonly McpTool[]): void {
    this.#taskTools = new Set(
      tools.filter((tool) => tool.execution?.taskSupport === 'required').map((tool) => tool.name),
    );
    this.#sync.apply(tools);
  }

  /**
   * Calls the server's tool for `tc`. While it runs it is a call in flight: the server's sampling
   * and elicitation requests that belong to it are answered by its `tc.sample` / `tc.elicit`.
   */
  #call(tool: string, tc: ToolContext, signal: AbortSignal): Promise<unknown> {
    const session = this.#session;
    if (!session || this.#state !== 'ready') {
      const facts = { error: this.#error, nextRetryAt: this.#nextRetryAt, failures: this.#failures };
      throw new HubosError('TOOL_FAILED', notConnectedMessage(this.name, this.#state, facts));
    }
    const oauth = this.#oauth;
    const call: CallInFlight = { tool, tc, samples: 0, questions: 0 };
    return this.#calls.run(call, () =>
      callServerTool(session.client, tool, tc.input, {
        server: this.name,
        signal,
        timeoutMs: this.#callTimeoutMs,
        task: this.#taskTools.has(tool),
        ...(session.opened.kind === 'http'
          ? { onUnreachable: (why: string) => void this.#lost(session, `a call could not reach it (${why})`) }
          : {}),
        ...(oauth
          ? {
              authorize: async (callSignal: AbortSignal) => {
                if (!oauth.pending) return false;
                await this.#authorize(session, AbortSignal.any([callSignal, this.#stopping.signal]));
                return true;
              },
              onSuccess: () => oauth.accepted(),
            }
          : {}),
      }),
    );
  }

  #setState(state: McpServerState): void {
    if (this.#state === 'closed') return;
    if (state !== this.#state) this.#since = Date.now();
    this.#state = state;
  }
}
