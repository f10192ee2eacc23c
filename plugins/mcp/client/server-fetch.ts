import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { HubosOAuthProvider } from './oauth-provider.ts';
import { reachesPrivate } from './private-address.ts';

export interface ServerFetchOptions {
  serverUrl: URL;
  /** The config's `headers`: meant for the server, so sent to its origin only. */
  headers?: Record<string, string> | undefined;
  oauth?: HubosOAuthProvider | undefined;
}

/**
 * The fetch an HTTP server's transport uses (for the server and, through the SDK's `auth()`, for
 * its authorization server). The configured headers (an API key) go to the server's origin only:
 * the SDK adds them to every request, discovery and token requests to another origin included.
 * With OAuth, it readies the provider when the server answers 401 or 403 (before the SDK reads the
 * redirect address) and notes a 403 `insufficient_scope`, after which a refresh cannot help.
 * Another origin the server names (its metadata, its authorization server) must be https and on
 * the public internet, unless the server itself is on a private or loopback address: a server
 * cannot steer HubOS at the machines behind it (cloud metadata, local services).
 */
export function serverFetch(options: ServerFetchOptions): FetchLike {
  const { serverUrl, oauth } = options;
  const names = Object.keys(options.headers ?? {}).map((name) => name.toLowerCase());
  let serverIsLocal: Promise<boolean> | undefined;
  return async (input, init) => {
    const url = new URL(input);
    const sameOrigin = url.origin === serverUrl.origin;
    if (!sameOrigin) {
      serverIsLocal ??= reachesPrivate(serverUrl.hostname);
      if (!(await serverIsLocal)) await checkPublic(url, serverUrl);
    }
    const response = await fetch(input, sameOrigin || names.length === 0 ? init : without(init, names));
    if (oauth && sameOrigin && url.pathname === serverUrl.pathname) {
      if (response.status === 401 || response.status === 403) await oauth.prepare();
      if (response.status === 403 && extractWWWAuthenticateParams(response).error === 'insufficient_scope')
        oauth.stepUp();
    }
    return response;
  };
}

async function checkPublic(url: URL, serverUrl: URL): Promise<void> {
  const refuse = (why: string) => {
    throw new Error(
      `refused to contact ${url.origin} for the MCP server at ${serverUrl.origin}: ${why} (only a server on a private or loopback address may name one)`,
    );
  };
  if (url.protocol !== 'https:') refuse('it is not https');
  if (await reachesPrivate(url.hostname)) refuse('it is a private or loopback address');
}

function without(init: RequestInit | undefined, names: readonly string[]): RequestInit | undefined {
  if (!init?.headers) return init;
  const headers = new Headers(init.headers);
  for (const name of names) headers.delete(name);
  return { ...init, headers };
}
