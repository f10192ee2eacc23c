import { isIP } from 'node:net';
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  AddressGuard,
  AddressRefusedError,
  classifyAddress,
  type DnsResolver,
  guardedFetch,
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

/**
 * The fetch an HTTP server's transport uses (for the server and, through the SDK's `auth()`, for
 * its authorization server). The configured headers (an API key) go to the server's origin only:
 * the SDK adds them to every request, discovery and token requests to another origin included.
 * With OAuth, it readies the provider when the server answers 401 or 403 (before the SDK reads the
 * redirect address) and notes a 403 `insufficient_scope`, after which a refresh cannot help.
 *
 * A remote server cannot steer HubOS at the machines behind it (cloud metadata, local services):
 * every connection, redirects included, goes through the address guard HubOS's HTTP tools use,
 * which connects to the address it checked; the server's own host, named in the config, is let
 * through, as are the hosts its `allowHosts` lists, and another origin it names (its metadata,
 * its authorization server) must be https.
 * A server the config names by a loopback or private address, or `localhost`, is a local setup:
 * the origins it names are not restricted.
 */
export function serverFetch(options: ServerFetchOptions): FetchLike {
  const { serverUrl, oauth } = options;
  const names = Object.keys(options.headers ?? {}).map((name) => name.toLowerCase());
  const local = namedLocal(serverUrl.hostname);
  const send = local
    ? fetch
    : guardedFetch(
        new AddressGuard({
          allowHosts: [serverUrl.hostname, ...(options.allowHosts ?? [])],
          setting: "this server's allowHosts",
          ...(options.resolver ? { resolver: options.resolver } : {}),
        }),
      );
  return async (input, init) => {
    const url = new URL(input);
    const sameOrigin = url.origin === serverUrl.origin;
    if (!sameOrigin && !local && url.protocol !== 'https:')
      refuse(
        url.origin,
        serverUrl,
        'it is not https (only a server the config names by a loopback or private address, or localhost, may name a plain http one)',
      );
    let response: Response;
    try {
      response = await send(url, sameOrigin || names.length === 0 ? init : without(init, names));
    } catch (error) {
      if (error instanceof AddressRefusedError && error.reason === 'blocked') {
        // A redirect that led elsewhere is named as such: the request's own host was not the one refused.
        const target =
          error.hostname === url.hostname.replace(/^\[(.*)\]$/, '$1')
            ? url.origin
            : `${error.hostname} (a redirect from ${url.origin})`;
        refuse(target, serverUrl, addressReason(error));
      }
      throw error;
    }
    if (oauth && sameOrigin && url.pathname === serverUrl.pathname) {
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

function without(init: RequestInit | undefined, names: readonly string[]): RequestInit | undefined {
  if (!init?.headers) return init;
  const headers = new Headers(init.headers);
  for (const name of names) headers.delete(name);
  return { ...init, headers };
}
