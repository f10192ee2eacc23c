/**
 * An OAuth-protected MCP server for the client tests, built from the official SDK's server-side
 * auth: an authorization server (`mcpAuthRouter`: metadata, dynamic registration, authorize, token
 * with PKCE and refresh) and, on another origin, the MCP server behind `requireBearerAuth` with its
 * protected-resource metadata. The authorization server approves every request at once (the
 * "person" is whoever opens the URL); the tests can expire every access token it gave.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  createOAuthMetadata,
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

// The SDK's auth routers are Express middleware; Express ships no types here, so what is used is typed.
type Request = IncomingMessage & { body?: unknown };
type Response = ServerResponse & { status(code: number): Response; redirect(url: string): void };
type Handler = (req: Request, res: Response, next: (error?: unknown) => void) => unknown;
interface App {
  use(...handlers: unknown[]): void;
  all(path: string, ...handlers: Handler[]): void;
  listen(port: number, host: string, ready: () => void): Server;
}
const express = createRequire(import.meta.url)('express') as { (): App; json(): Handler };

interface Grant {
  clientId: string;
  scopes: string[];
  resource?: URL;
}

/** An in-memory authorization server that approves at once, with refresh tokens. */
class ApprovingProvider implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  readonly codes = new Map<string, { grant: Grant; challenge: string; redirectUri: string }>();
  readonly access = new Map<string, Grant & { expired: boolean }>();
  readonly refresh = new Map<string, Grant>();
  /** Grants given, by kind, for assertions. */
  readonly given = { authorization_code: 0, refresh_token: 0 };
  /** Every token this server handed out: none may show up in logs. */
  readonly secrets: string[] = [];

  readonly clientsStore = {
    getClient: async (id: string) => this.clients.get(id),
    registerClient: async (client: OAuthClientInformationFull) => {
      this.clients.set(client.client_id, client);
      if (client.client_secret) this.secrets.push(client.client_secret);
      return client;
    },
  };

  async authorize(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    res: Response,
  ): Promise<void> {
    const code = randomUUID();
    const grant = {
      clientId: client.client_id,
      scopes: params.scopes ?? [],
      ...(params.resource ? { resource: params.resource } : {}),
    };
    this.codes.set(code, { grant, challenge: params.codeChallenge, redirectUri: params.redirectUri });
    const back = new URL(params.redirectUri);
    back.searchParams.set('code', code);
    if (params.state !== undefined) back.searchParams.set('state', params.state);
    res.redirect(back.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const entry = this.codes.get(code);
    if (!entry) throw new InvalidGrantError('unknown code');
    return entry.challenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const entry = this.codes.get(code);
    if (!entry || entry.grant.clientId !== client.client_id) throw new InvalidGrantError('unknown code');
    this.codes.delete(code);
    this.given.authorization_code++;
    return this.#issue(entry.grant, true);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, token: string): Promise<OAuthTokens> {
    const grant = this.refresh.get(token);
    if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
    this.given.refresh_token++;
    return this.#issue(grant, false, token);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const grant = this.access.get(token);
    if (!grant || grant.expired) throw new InvalidTokenError('the access token is expired or unknown');
    return {
      token,
      clientId: grant.clientId,
      scopes: grant.scopes,
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    };
  }

  /** Every access token given so far stops working (as if their hour had passed). */
  expireAccessTokens(): void {
    for (const grant of this.access.values()) grant.expired = true;
  }

  #issue(grant: Grant, withRefresh: boolean, refreshToken?: string): OAuthTokens {
    const access = `at-${randomUUID()}`;
    this.access.set(access, { ...grant, expired: false });
    this.secrets.push(access);
    let refresh = refreshToken;
    if (withRefresh) {
      refresh = `rt-${randomUUID()}`;
      this.refresh.set(refresh, grant);
      this.secrets.push(refresh);
    }
    return {
      access_token: access,
      token_type: 'bearer',
      expires_in: 3600,
      ...(refresh ? { refresh_token: refresh } : {}),
      ...(grant.scopes.length ? { scope: grant.scopes.join(' ') } : {}),
    };
  }
}

export interface OAuthMcpServer {
  /** The MCP endpoint: `http://127.0.0.1:<port>/mcp`. */
  url: string;
  provider: ApprovingProvider;
  /** The headers of each request the authorization server got. */
  authServerHeaders: IncomingHttpHeaders[];
  /** The headers of each request the MCP endpoint got. */
  mcpHeaders: IncomingHttpHeaders[];
  stop(): Promise<void>;
}

async function listen(app: App): Promise<{ server: Server; origin: string }> {
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'protected', version: '1.0.0' });
  server.registerTool(
    'whoami',
    { description: 'Says which client called.', inputSchema: {} },
    (_args, extra) => ({
      content: [{ type: 'text', text: `client ${extra.authInfo?.clientId ?? 'unknown'}` }],
    }),
  );
  return server;
}

export interface OAuthMcpServerOptions {
  /** A scope `tools/call` needs beyond the others (answered 403 insufficient_scope without it). */
  callScope?: string;
}

export async function startOAuthMcpServer(options: OAuthMcpServerOptions = {}): Promise<OAuthMcpServer> {
  const provider = new ApprovingProvider();
  const authServerHeaders: IncomingHttpHeaders[] = [];
  const mcpHeaders: IncomingHttpHeaders[] = [];

  const authApp = express();
  const record: Handler = (req, _res, next) => {
    authServerHeaders.push(req.headers);
    next();
  };
  authApp.use(record);
  const auth = await listen(authApp);
  const issuerUrl = new URL(auth.origin);
  const noLimit = { rateLimit: false } as const;
  authApp.use(
    mcpAuthRouter({
      provider,
      issuerUrl,
      scopesSupported: ['mcp:tools'],
      authorizationOptions: noLimit,
      tokenOptions: noLimit,
      clientRegistrationOptions: noLimit,
      revocationOptions: noLimit,
    }),
  );

  const app = express();
  const mcp = await listen(app);
  const mcpUrl = new URL(`${mcp.origin}/mcp`);
  app.use(
    mcpAuthMetadataRouter({
      oauthMetadata: createOAuthMetadata({ provider, issuerUrl, scopesSupported: ['mcp:tools'] }),
      resourceServerUrl: mcpUrl,
      scopesSupported: ['mcp:tools'],
    }),
  );
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(mcpUrl);
  const signedIn = requireBearerAuth({ verifier: provider, resourceMetadataUrl });
  const scoped = options.callScope
    ? requireBearerAuth({ verifier: provider, resourceMetadataUrl, requiredScopes: [options.callScope] })
    : signedIn;
  app.all(
    '/mcp',
    express.json(),
    (req, res, next) => {
      mcpHeaders.push(req.headers);
      const calling = (req.body as { method?: string } | undefined)?.method === 'tools/call';
      return (calling ? scoped : signedIn)(req, res, next);
    },
    async (req, res) => {
      const id = req.headers['mcp-session-id'] as string | undefined;
      let transport = id ? sessions.get(id) : undefined;
      if (id && !transport) {
        res.status(404).end();
        return;
      }
      if (!transport) {
        const fresh = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (session) => {
            sessions.set(session, fresh);
          },
        });
        await mcpServer().connect(fresh);
        transport = fresh;
      }
      await transport.handleRequest(req, res, req.body);
    },
  );

  return {
    url: mcpUrl.href,
    provider,
    authServerHeaders,
    mcpHeaders,
    async stop() {
      for (const transport of sessions.values()) await transport.close();
      for (const server of [mcp.server, auth.server])
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
    },
  };
}
