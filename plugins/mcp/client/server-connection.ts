import { resolve } from 'node:path';
import { ErrorCode, McpError, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, HubosError, type Logger, type Registry } from '../../../core/index.ts';
import type { McpRestartConfig, McpServerConfig } from '../config.ts';
import { DEFAULT_RESTART, givesUp, retryDelay } from './backoff.ts';
import {
  isConnectionError,
  messageWithCause,
  StartTimeoutError,
  startFailureReason,
} from './failure-reason.ts';
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
      handlerFor: (tool) => (ctx, tc) => this.#call(tool, tc.input, ctx.signal),
    });
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
    };
  }

  /** No more attempts (the kernel is closing); the connection stays until `close()`. */
  stopRetrying(): void {
    this.#closed = true;
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
      session = openSession(this.config, this.#deps.baseDir, this.#deps.version, {
        onClose: (closed) => this.#onClose(closed),
        onError: (closed, error) => this.#onError(closed, error),
        onToolsChanged: (changed) => this.#relist(changed),
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
        () => new StartTimeoutError(`it did not finish starting within ${formatDelay(ms)} (startTimeoutMs)`),
      );
    } catch (error) {
      if (this.#session !== session) return; // closed meanwhile
      this.#session = undefined;
      const cwd = isHttp(this.config) ? undefined : resolve(this.#deps.baseDir, this.config.cwd ?? '.');
      const kind = isHttp(this.config) ? 'http' : 'stdio';
      await this.#fail(session, startFailureReason(error, kind, describeTarget(this.config), cwd), false);
      return;
    }
    if (this.#session !== session) return;
    this.#sync.apply(tools);
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
            if (this.#session === current) this.#sync.apply(tools);
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

  #call(tool: string, input: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const session = this.#session;
    if (!session || this.#state !== 'ready') {
      const facts = { error: this.#error, nextRetryAt: this.#nextRetryAt, failures: this.#failures };
      throw new HubosError('TOOL_FAILED', notConnectedMessage(this.name, this.#state, facts));
    }
    return callServerTool(session.client, tool, input, {
      server: this.name,
      signal,
      timeoutMs: this.#callTimeoutMs,
      ...(session.opened.kind === 'http'
        ? { onUnreachable: (why: string) => void this.#lost(session, `a call could not reach it (${why})`) }
        : {}),
    });
  }

  #setState(state: McpServerState): void {
    if (this.#state === 'closed') return;
    if (state !== this.#state) this.#since = Date.now();
    this.#state = state;
  }
}
