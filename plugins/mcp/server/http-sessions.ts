import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Principal } from '../../../core/index.ts';
import { DrainableTransport } from './drainable-transport.ts';
import { type EventStoreLimits, SessionEventStore } from './event-store.ts';

/**
 * Builds a fresh MCP server for one session; it reports each tool call it starts to `onCall`, and
 * answers the calls still running when `cutoff` settles (the shutdown's drain is over).
 */
export type ServerFactory = (
  onCall: (call: Promise<unknown>) => void,
  cutoff: Promise<void>,
  principal: Principal,
) => Server;

export interface HttpSessionsOptions {
  /** Largest POST body the transport reads (the app's body limit checks it first). */
  maxBodyBytes: number;
  /** A session no request touched for this long, with no call running, is closed. */
  idleMs: number;
  /** Most sessions at once (503 beyond). */
  maxSessions: number;
  /**
   * What each session keeps of its recent events, for clients that reconnect (`Last-Event-ID`).
   * Default 500 events and 1 MiB: bounded, since every session has its own.
   */
  replay?: EventStoreLimits;
  /** How long a client waits before it reconnects a dropped stream (the SSE `retry` field). Default 1 s. */
  retryMs?: number;
}

const REPLAY: EventStoreLimits = { maxEvents: 500, maxBytes: 1024 * 1024 };
const RETRY_MS = 1000;

interface Session {
  server: Server;
  transport: DrainableTransport;
  /** The caller (principal id) that opened it: only that caller may use it. */
  principal: string;
  lastSeen: number;
  running: number;
}

/** How a request fared, when it is refused before reaching a session. */
export type Refusal = { status: 400 | 404 | 503; message: string };

/**
 * MCP sessions over Streamable HTTP: each `initialize` gets its own server and transport, kept by
 * the `Mcp-Session-Id` the transport generates, until the client sends DELETE, the session sits
 * idle too long, or the endpoint closes. Each session keeps its recent events (bounded) so a
 * dropped stream can be resumed.
 */
export class HttpSessions {
  readonly #sessions = new Map<string, Session>();
  readonly #calls = new Set<Promise<unknown>>();
  readonly #opening = new Set<{ principal: string }>();
  readonly #factory: ServerFactory;
  readonly #options: HttpSessionsOptions;
  #reaper: NodeJS.Timeout | undefined;
  #closed = false;
  #cut!: () => void;
  readonly #cutoff = new Promise<void>((resolve) => {
    this.#cut = resolve;
  });

  constructor(factory: ServerFactory, options: HttpSessionsOptions) {
    this.#factory = factory;
    this.#options = options;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Answers one request of the MCP endpoint: to its session, or opening one on `initialize`. */
  async handle(request: Request, caller: Principal, parsedBody?: unknown): Promise<Response | Refusal> {
    const principal = caller.id;
    const id = request.headers.get('mcp-session-id');
    // While it drains, existing sessions still talk (their running calls may wait on an answer); no new ones.
    if (this.#closed && id === null) return { status: 503, message: 'the MCP endpoint is shutting down' };
    if (id !== null) {
      const session = this.#sessions.get(id);
      if (!session || session.principal !== principal) {
        return {
          status: 404,
          message: `no MCP session "${id}": it was closed, sat idle too long, or the server restarted. Start a new session (initialize).`,
        };
      }
      session.lastSeen = Date.now();
      return session.transport.handleRequest(request, { parsedBody });
    }
    if (request.method !== 'POST') {
      return {
        status: 400,
        message: 'missing the Mcp-Session-Id header: open a session with an initialize POST first',
      };
    }
    this.#reap();
    // Counted with the ones still opening, so concurrent initializes cannot overshoot the caps.
    if (this.#sessions.size + this.#opening.size >= this.#options.maxSessions) {
      return {
        status: 503,
        message: `too many MCP sessions (${this.#options.maxSessions}): end unused ones (DELETE) or retry later`,
      };
    }
    // One API key cannot take every session from the others.
    const perKey = Math.max(1, Math.floor(this.#options.maxSessions / 10));
    const owned = [...this.#sessions.values(), ...this.#opening].filter(
      (s) => s.principal === principal,
    ).length;
    if (owned >= perKey) {
      return {
        status: 503,
        message: `this API key has ${owned} MCP sessions open (at most ${perKey}): end unused ones (DELETE) or retry later`,
      };
    }
    const opening = { principal };
    this.#opening.add(opening);
    let session: Session;
    let response: Response;
    try {
      session = await this.#open(caller);
      // The session is kept (by id) once initialize is handled: until then it counts as opening.
      response = await session.transport.handleRequest(request, { parsedBody });
    } finally {
      this.#opening.delete(opening);
    }
    // Anything but an initialize was refused by the transport, and made no session: drop it.
    if (session.transport.sessionId === undefined) await session.server.close();
    return response;
  }

  async #open(caller: Principal): Promise<Session> {
    const session = { principal: caller.id, lastSeen: Date.now(), running: 0 } as Session;
    session.server = this.#factory(
      (call) => {
        session.running += 1;
        this.#calls.add(call);
        void call.finally(() => {
          session.running -= 1;
          session.lastSeen = Date.now();
          this.#calls.delete(call);
        });
      },
      this.#cutoff,
      caller,
    );
    session.transport = new DrainableTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: this.#options.maxBodyBytes,
      // Streams open with a priming event (an id, the retry delay): a client that loses one
      // reconnects with Last-Event-ID and gets what it missed, from this session's own store.
      eventStore: new SessionEventStore(this.#options.replay ?? REPLAY),
      retryInterval: this.#options.retryMs ?? RETRY_MS,
      onsessioninitialized: (id) => {
        this.#sessions.set(id, session);
        this.#reaper ??= setInterval(() => this.#reap(), Math.min(this.#options.idleMs, 60_000)).unref();
      },
    });
    // DELETE, the idle reaper and shutdown all end in the transport closing.
    session.transport.onclose = () => {
      const id = session.transport.sessionId;
      if (id !== undefined && this.#sessions.get(id) === session) this.#sessions.delete(id);
    };
    await session.server.connect(session.transport);
    return session;
  }

  #reap(): void {
    const cutoff = Date.now() - this.#options.idleMs;
    for (const session of this.#sessions.values()) {
      if (session.running === 0 && session.lastSeen < cutoff) void session.server.close();
    }
  }

  /**
   * Lets running calls finish for up to `drainMs`; calls still running then answer that the
   * server is shutting down (and are cancelled), and every session closes: their open SSE
   * streams end (they would otherwise hold the HTTP server open).
   */
  async close(drainMs: number): Promise<void> {
    this.#closed = true;
    clearInterval(this.#reaper);
    if (this.#calls.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.#calls]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, drainMs);
        }),
      ]);
      clearTimeout(timer);
    }
    if (this.#calls.size > 0) {
      // Calls still running answer "shutting down".
      this.#cut();
      await Promise.allSettled([...this.#calls]);
    }
    // The calls' answers are written before the streams close.
    await Promise.all([...this.#sessions.values()].map((session) => session.transport.flushed()));
    await Promise.all([...this.#sessions.values()].map((session) => session.server.close()));
    this.#sessions.clear();
  }
}
