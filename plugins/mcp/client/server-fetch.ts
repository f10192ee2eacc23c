import { isIP } from 'node:net';
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  AddressGuard,
  AddressRefusedError,
  classifyAddress,
  type DnsResolver,
  guardedFetch,
  redirectHop,
} from '../../../core/index.ts';
import type { HubosOAuthProvider } from './oauth-provider.ts';

export interface ServerFetchOptions {
  serverUrl: URL;
  /** The config's `headers`: meant for the server, so sent to its origin only. */
  headers?: Record<string, string> | undefined;
  oauth?: HubosOAuthProvider | undefined;
  /** The config's `allowHosts`: internal hosts the server may lead HubOS to. */
  allowHosts?: readonly string[] | undefined;
  /** The DNS lookup of the address guard (tests inject one). Default: `dns.lookup`. */
  resolver?: DnsResolver | undefined;
}

/** Redirects followed for one request before it fails: as many as a browser's fetch allows, halved. */
const MAX_REDIRECTS = 10;

/**
 * The fetch an HTTP server's transport uses (for the server and, through the SDK's `auth()`, for
 * its authorization server). The configured headers (an API key) go to the server's origin only:
 * the SDK adds them to every request, discovery and token requests to another origin included.
 * With OAuth, it readies the provider when the server answers 401 or 403 (before the SDK reads the
 * redirect address) and notes a 403 `insufficient_scope`, after which a refresh cannot help.
 *
 * A remote server cannot steer HubOS at the machines behind it (cloud metadata, local services):
 * every connection goes through the address guard HubOS's HTTP tools use, which connects to the
 * address it checked. The server's own host is checked too, so a name whose DNS is turned to an
 * internal address after start is refused: only the hosts its `allowHosts` lists are let through
 * though internal. Another origin it names (its metadata, its authorization server) must be https.
 * Redirects are followed here, hop by hop (at most MAX_REDIRECTS), each under the same rules
 * (fetch would follow them with none of these checks but the address); a caller that asks for
 * `redirect: 'manual'` (the SDK, following within an origin) gets the redirect itself.
 * A server the config names by a loopback or private address, or `localhost`, is a local setup:
 * the origins it names are not restricted, though the configured headers still stay on its origin.
 */
export function serverFetch(options: ServerFetchOptions): FetchLike {
  const { serverUrl, oauth } = options;
  const names = Object.keys(options.headers ?? {}).map((name) => name.toLowerCase());
  const local = namedLocal(serverUrl.hostname);
  const send = local
    ? fetch
    : guardedFetch(
        new AddressGuard({
          allowHosts: options.allowHosts ?? [],
          setting: "this server's allowHosts",
          ...(options.resolver ? { resolver: options.resolver } : {}),
        }),
      );

  /** One request, to `url`: refused when the rules say so; `from` is the URL that redirected here. */
  const hop = async (url: URL, init: RequestInit | undefined, from: URL | undefined): Promise<Response> => {
    const target = from ? `${url.origin} (a redirect from ${from.origin})` : url.origin;
    if (url.origin !== serverUrl.origin && !local && url.protocol !== 'https:')
      refuse(
        target,
        serverUrl,
        'it is not https (only a server the config names by a loopback or private address, or localhost, may name a plain http one)',
      );
    try {
      return await send(url, init);
    } catch (error) {
      if (error instanceof AddressRefusedError && error.reason === 'blocked')
        refuse(target, serverUrl, addressReason(error));
      throw error;
    }
  };

  return async (input, init) => {
    const first = new URL(input);
    let url = first;
    let request = url.origin === serverUrl.origin || names.length === 0 ? init : without(init, names);
    let from: URL | undefined;
    let response: Response;
    if (init?.redirect === 'manual' || init?.redirect === 'error') {
      response = await hop(url, request, undefined);
    } else {
      for (let redirects = 0; ; redirects++) {
        response = await hop(url, { ...request, redirect: 'manual' }, from);
        const next = redirectHop(
          url,
          request?.method ?? 'GET',
          response.status,
          response.headers.get('location'),
        );
        if (!next) break;
        await response.body?.cancel().catch(() => {});
        if (redirects >= MAX_REDIRECTS)
          throw new Error(
            `too many redirects from ${first.href}: stopped after ${MAX_REDIRECTS} (${url.href} redirects again to ${next.url.href})`,
          );
        // What is dropped stays dropped: a later hop back to the server's origin does not get it again.
        const dropped = [...next.dropHeaders, ...(next.url.origin !== serverUrl.origin ? names : [])];
        request = withHop(request, next.method, next.keepsBody, dropped);
        from = url;
        url = next.url;
      }
    }
    if (oauth && first.origin === serverUrl.origin && first.pathname === serverUrl.pathname) {
      if (response.status === 401 || response.status === 403) await oauth.prepare();
      if (response.status === 403 && extractWWWAuthenticateParams(response).error === 'insufficient_scope')
        oauth.stepUp();
    }
    return response;
  };
}

/** A host the config names as on this machine or its network: `localhost`, or an internal IP. */
function namedLocal(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && classifyAddress(host) !== undefined;
}

/** The guard's reason: what was refused, and how to allow it. */
function addressReason(error: AddressRefusedError): string {
  return error.message.replace(/^blocked: /, '');
}

function refuse(target: string, serverUrl: URL, why: string): never {
  throw new Error(`refused to contact ${target} for the MCP server at ${serverUrl.origin}: ${why}`);
}

/** The request a redirect asks for: its method, the body kept or not, `dropped` headers removed. */
function withHop(
  init: RequestInit | undefined,
  method: string,
  keepsBody: boolean,
  dropped: readonly string[],
): RequestInit {
  const { body, ...rest } = without(init, dropped) ?? {};
  return { ...rest, method, ...(keepsBody && body != null ? { body } : {}) };
}

function without(init: RequestInit | undefined, names: readonly string[]): RequestInit | undefined {
  if (!init?.headers) return init;
  const headers = new Headers(init.headers);
  for (const name of names) headers.delete(name);
  return { ...init, headers };
}
