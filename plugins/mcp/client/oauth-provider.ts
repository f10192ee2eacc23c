import { randomBytes } from 'node:crypto';
import type { AddClientAuthentication, OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { errorMessage, type Logger, type Store } from '../../../core/index.ts';
import type { McpClientAuthConfig, McpConfig, McpServerConfig } from '../config.ts';
import { AuthorizationError } from './authorization-error.ts';
import { signingAlgorithm } from './config-check.ts';
import { CALLBACK_PATH, freeLoopbackPort, PortInUseError } from './loopback.ts';
import { OAuthStore } from './oauth-store.ts';
import { DEFAULT_AUTHORIZATION_TIMEOUT_MS, PersonAuthorization } from './person-authorization.ts';
import { describeTarget, isHttp } from './transport.ts';

/**
 * Grants in a row a server did not accept (it asked for authorization again): HubOS then stops
 * asking people, so a server that can never be satisfied does not send them round in circles.
 */
export const MAX_GRANTS_IN_A_ROW = 3;

export interface OAuthProviderOptions {
  server: string;
  /** The server URL without its query: what the kept tokens belong to. */
  resource: string;
  auth: McpClientAuthConfig;
  store: Store;
  logger: Logger;
  version: string;
  onAuthorize?: McpConfig['onAuthorize'];
}

/**
 * The OAuth provider of an HTTP server, unless it signs in otherwise: `auth: false`, or an
 * `Authorization` header of its own (the config then has no `auth`, see checkServerConfig).
 */
export function oauthProviderFor(
  server: string,
  config: McpServerConfig,
  options: Pick<OAuthProviderOptions, 'store' | 'logger' | 'version' | 'onAuthorize'>,
): HubosOAuthProvider | undefined {
  if (!isHttp(config) || config.auth === false) return undefined;
  const headers = Object.keys(config.headers ?? {}).map((header) => header.toLowerCase());
  if (!config.auth && headers.includes('authorization')) return undefined;
  return new HubosOAuthProvider({
    server,
    resource: describeTarget(config),
    auth: config.auth ?? {},
    store: options.store,
    logger: options.logger,
    version: options.version,
    ...(options.onAuthorize ? { onAuthorize: options.onAuthorize } : {}),
  });
}

/**
 * HubOS's side of MCP authorization for one HTTP server, driven by the SDK's `auth()`: tokens,
 * the registered client and the PKCE verifier are kept in the kernel's Store (see `OAuthStore`),
 * never logged. With the `authorization_code` grant a person is sent to the authorization URL
 * (logged, and handed to `onAuthorize`) and the code comes back to a loopback listener; with
 * `client_credentials` HubOS signs in as itself (client secret, or a JWT signed with its key).
 */
export class HubosOAuthProvider implements OAuthClientProvider {
  readonly addClientAuthentication?: AddClientAuthentication;
  // A field set only when configured (not a getter of `string | undefined`): the SDK's interface
  // declares it optional, which a project with `exactOptionalPropertyTypes` reads strictly.
  readonly clientMetadataUrl?: string;
  readonly #options: OAuthProviderOptions;
  readonly #kept: OAuthStore;
  readonly #person: PersonAuthorization;
  #port: number | undefined;
  #choosingPort: Promise<void> | undefined;
  #grantsInARow = 0;
  #exchangingCode = false;
  /** The server wants more scope than the token has: a refresh cannot widen it, so it is set aside. */
  #stepUp = false;

  constructor(options: OAuthProviderOptions) {
    this.#options = options;
    this.#kept = new OAuthStore(options.store, options.server, options.resource);
    const { auth } = options;
    this.#person = new PersonAuthorization({
      server: options.server,
      logger: options.logger,
      timeoutMs: auth.authorizationTimeoutMs ?? DEFAULT_AUTHORIZATION_TIMEOUT_MS,
      ...(options.onAuthorize ? { onAuthorize: options.onAuthorize } : {}),
    });
    if (auth.clientMetadataUrl !== undefined) this.clientMetadataUrl = auth.clientMetadataUrl;
    if (auth.privateKey !== undefined && auth.clientId !== undefined) {
      this.addClientAuthentication = createPrivateKeyJwtAuth({
        issuer: auth.clientId,
        subject: auth.clientId,
        privateKey: auth.privateKey,
        alg: signingAlgorithm(auth),
      });
    }
  }

  /** A person authorizes (authorization_code), rather than HubOS alone (client_credentials). */
  get interactive(): boolean {
    return this.#options.auth.grant !== 'client_credentials';
  }

  /** Settles the loopback port before the SDK reads `redirectUrl` (called when the server answers 401/403). */
  async prepare(): Promise<void> {
    if (!this.interactive || this.#port !== undefined) return;
    const configured = this.#options.auth.redirectPort;
    if (configured !== undefined) {
      this.#port = configured;
      return;
    }
    // One choice for answers arriving together.
    this.#choosingPort ??= this.#choosePort().finally(() => {
      this.#choosingPort = undefined;
    });
    await this.#choosingPort;
  }

  // Kept, so the registered redirect address stays the same across restarts.
  async #choosePort(): Promise<void> {
    const kept = await this.#kept.get<{ port: number }>('redirect');
    const port = kept?.port ?? (await freeLoopbackPort());
    if (!kept) await this.#kept.set('redirect', { port });
    this.#port = port;
  }

  get redirectUrl(): string | undefined {
    if (!this.interactive) return undefined;
    if (this.#port === undefined) throw new Error('the loopback port is not chosen yet (prepare() first)');
    return `http://127.0.0.1:${this.#port}${CALLBACK_PATH}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { auth, version } = this.#options;
    const interactive = this.interactive;
    return {
      client_name: 'HubOS',
      redirect_uris: interactive ? [this.redirectUrl!] : [],
      grant_types: interactive ? ['authorization_code', 'refresh_token'] : ['client_credentials'],
      response_types: interactive ? ['code'] : [],
      token_endpoint_auth_method: auth.privateKey
        ? 'private_key_jwt'
        : auth.clientSecret
          ? 'client_secret_basic'
          : 'none',
      software_id: 'hubos',
      software_version: version,
      ...(auth.scope ? { scope: auth.scope } : {}),
    };
  }

  state(): string {
    return randomBytes(24).toString('base64url');
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { auth } = this.#options;
    if (auth.clientId !== undefined) {
      // Pre-registered: from the config, bound to the authorization server that first accepted it.
      const bound = await this.#kept.get<{ clientId: string; issuer: string }>('client');
      const issuer = auth.issuer ?? (bound?.clientId === auth.clientId ? bound.issuer : undefined);
      return {
        client_id: auth.clientId,
        ...(auth.clientSecret !== undefined ? { client_secret: auth.clientSecret } : {}),
        ...(issuer ? { issuer } : {}),
      };
    }
    const info = await this.#kept.get<OAuthClientInformationMixed & { redirect_uris?: unknown }>('client');
    if (!info) return undefined;
    // A metadata-document client id that is no longer the configured one, or a registration made
    // for another redirect address (the port changed): register again.
    if (/^https:/.test(info.client_id) && info.client_id !== auth.clientMetadataUrl) return undefined;
    if (
      Array.isArray(info.redirect_uris) &&
      this.interactive &&
      !info.redirect_uris.includes(this.redirectUrl)
    )
      return undefined;
    return info;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    const { auth, server } = this.#options;
    if (auth.clientId === undefined) {
      await this.#kept.set('client', info);
      return;
    }
    if (info.client_id !== auth.clientId)
      throw new AuthorizationError(
        `the client "${auth.clientId}" of mcp.servers.${server}.auth is bound to another authorization server than ${info.issuer ?? 'the one the server names'}: set auth.issuer to the right one, or remove auth.clientId to let HubOS register itself`,
        false,
      );
    if (info.issuer) await this.#kept.set('client', { clientId: auth.clientId, issuer: info.issuer });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const tokens = await this.#kept.get<OAuthTokens>('tokens');
    if (!tokens || !this.#stepUp) return tokens;
    const { refresh_token: _setAside, ...rest } = tokens;
    return rest;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.#kept.set('tokens', tokens);
    this.#stepUp = false;
    if (this.#exchangingCode) {
      this.#exchangingCode = false;
      this.#grantsInARow++;
      await this.#kept.delete('verifier');
    }
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const { auth } = this.#options;
    if (this.#grantsInARow >= MAX_GRANTS_IN_A_ROW) {
      const scope = authorizationUrl.searchParams.get('scope');
      throw new AuthorizationError(
        `the server kept asking for authorization after ${this.#grantsInARow} grants in a row${scope ? ` (for scope "${scope}")` : ''}, so HubOS stops asking: check the scopes it requires (and auth.scope)`,
        false,
      );
    }
    try {
      await this.#person.ask(authorizationUrl, this.#port ?? 0);
    } catch (error) {
      if (!(error instanceof PortInUseError) || auth.redirectPort !== undefined)
        throw new AuthorizationError(
          `cannot receive the authorization code: ${errorMessage(error)}${auth.redirectPort !== undefined ? ' (choose another auth.redirectPort)' : ''}`,
          true,
        );
      // The kept port was taken meanwhile: the next attempt picks (and registers) another.
      await this.#kept.delete('redirect');
      this.#port = undefined;
      throw new AuthorizationError(
        `cannot receive the authorization code: ${errorMessage(error)}; another port is picked next time`,
        true,
      );
    }
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    await this.#kept.set('verifier', codeVerifier);
  }

  async codeVerifier(): Promise<string> {
    const verifier = await this.#kept.get<string>('verifier');
    if (!verifier)
      throw new AuthorizationError('the PKCE verifier of this authorization is gone: start again', true);
    // Read only to exchange a code: the tokens saved next come from a person's grant.
    this.#exchangingCode = true;
    return verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'tokens') await this.#kept.delete('tokens');
    if (scope === 'all' || scope === 'verifier') await this.#kept.delete('verifier');
    if ((scope === 'all' || scope === 'client') && this.#options.auth.clientId === undefined)
      await this.#kept.delete('client');
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.interactive) return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }

  /** The authorization a person is asked for now, if any (its URL, until when it is waited for). */
  get pending(): { url: string; expiresAt: string } | undefined {
    return this.#person.pending;
  }

  /**
   * Waits for the person to finish the authorization under way, then `exchange`s the code (once,
   * however many wait). Rejects when time is up, the server refused, or `signal` aborts this wait.
   */
  authorize(exchange: (code: string) => Promise<void>, signal: AbortSignal): Promise<void> {
    return this.#person.authorize(async (code) => {
      try {
        await exchange(code);
      } finally {
        this.#exchangingCode = false;
      }
    }, signal);
  }

  /** What was granted worked (a request that needed it succeeded). */
  accepted(): void {
    this.#grantsInARow = 0;
  }

  /** The server answered 403 insufficient_scope: the next sign-in asks anew rather than refreshing. */
  stepUp(): void {
    this.#stepUp = true;
  }

  /** Stops waiting for a person (the connection is closing). */
  close(): void {
    this.#person.close();
  }
}
