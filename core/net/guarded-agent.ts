import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { Agent, buildConnector } from 'undici';
import { type AddressGuard, AddressRefusedError } from './address-guard.ts';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** How long a guarded connection and its answer may take. */
export interface GuardedAgentOptions {
  /** Connect, headers and body timeout (ms). Default: undici's. */
  timeoutMs?: number;
}

/**
 * An undici connection pool whose every connection is checked by `guard` as it is made: a
 * hostname is resolved once, in the socket's own lookup, every answer checked, and the socket
 * connects to those answers and nothing else (no second resolution for DNS to rebind); an IP is
 * checked as written. A redirect to another host opens a connection, so it is checked too. A
 * refused connection fails with the guard's AddressRefusedError (under `cause` from fetch).
 */
export async function guardedAgent(guard: AddressGuard, options: GuardedAgentOptions = {}): Promise<Agent> {
  // undici loads with the first guarded request, not with the core.
  const undici = await import('undici');
  const lookup = (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback) => {
    guard.addresses(hostname).then(
      (pins) => {
        if (lookupOptions.all) callback(null, pins);
        else callback(null, pins[0]!.address, pins[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
  const timeout = options.timeoutMs;
  const connectSocket = undici.buildConnector({ lookup, ...(timeout ? { timeout } : {}) });
  // An IP is connected to without a lookup: checked here instead.
  const connect: buildConnector.connector = (target, callback) => {
    if (isIP(target.hostname) === 0) return connectSocket(target, callback);
    guard.addresses(target.hostname).then(
      () => connectSocket(target, callback),
      (error: Error) => callback(error, null),
    );
  };
  return new undici.Agent({
    connect,
    ...(timeout ? { headersTimeout: timeout, bodyTimeout: timeout } : {}),
  });
}

/** A fetch whose connections `guard` checks: `fetch(url, init)` as the global one, URLs only. */
export type GuardedFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch (the global one's Response, redirects followed) whose every connection, each redirect's
 * included, goes through `guardedAgent`. A refused address rejects with the guard's
 * AddressRefusedError itself, not fetch's bare `fetch failed`.
 */
export function guardedFetch(guard: AddressGuard, options: GuardedAgentOptions = {}): GuardedFetch {
  let agent: Promise<Agent> | undefined;
  return async (input, init) => {
    agent ??= guardedAgent(guard, options);
    const undici = await import('undici');
    let response: Awaited<ReturnType<typeof undici.fetch>>;
    try {
      response = await undici.fetch(input, {
        ...(init as Parameters<typeof undici.fetch>[1]),
        dispatcher: await agent,
      });
    } catch (error) {
      throw refusalIn(error) ?? error;
    }
    return asGlobalResponse(response);
  };
}

/** The guard's refusal behind a fetch error, if that is what it was. */
function refusalIn(error: unknown): AddressRefusedError | undefined {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AddressRefusedError) return e;
  }
  return undefined;
}

// undici's own fetch answers with its own Response class: callers (the MCP SDK among them) test
// `instanceof Response`, so the answer is handed over as the global one, body streamed as it comes.
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
function asGlobalResponse(response: {
  body: ReadableStream | null;
  status: number;
  statusText: string;
  headers: Iterable<[string, string]>;
  url: string;
  redirected: boolean;
}): Response {
  const global = new Response(NULL_BODY.has(response.status) ? null : response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers],
  });
  Object.defineProperties(global, {
    url: { value: response.url },
    redirected: { value: response.redirected },
  });
  return global;
}
