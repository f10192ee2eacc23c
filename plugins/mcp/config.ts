import { MCP_SERVERS_SCHEMA } from './client/config-schema.ts';

/** An MCP server HubOS starts as a child process and talks to over stdin/stdout. */
export interface McpStdioServerConfig {
  command: string;
  args?: string[];
  /**
   * What reaches the process besides a few non-secret basics (PATH, HOME, ...): a list of variable
   * names copied from HubOS's environment, or names with their values.
   */
  env?: string[] | Record<string, string>;
  /** The process's working folder, relative to the config file's folder (default: that folder). */
  cwd?: string;
  /** Tool names become `<prefix>_<tool>` (default: the server's name; "" for none). */
  prefix?: string;
  /** How long one tool call may take (default 60 s). */
  timeoutMs?: number;
  /** How long one start attempt (spawn, initialize, list tools) may take before it counts as failed (default 30 s). */
  startTimeoutMs?: number;
  /** false: configured but not started. */
  enabled?: boolean;
  /** The server's model requests (`sampling/createMessage`), answered by the calling run's model: limits, or false to refuse them. */
  sampling?: McpSamplingConfig;
  /** false: the server's questions (`elicitation/create`) are not offered to the run's human. */
  elicitation?: boolean;
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpServerConfig {
  url: string;
  /** Sent with every request to the server's origin (e.g. an API key header). */
  headers?: Record<string, string>;
  /**
   * How HubOS signs in when the server asks for OAuth (MCP authorization). Default: a person
   * authorizes in a browser (authorization code with PKCE, HubOS registering itself). false: never.
   */
  auth?: McpClientAuthConfig | false;
  /**
   * Hosts the server may lead HubOS to though they are internal (its authorization server on a
   * private network): names (`*.corp.example` for subdomains), IPs, CIDR ranges. A server named
   * by a loopback or private address, or `localhost`, needs none.
   */
  allowHosts?: string[];
  prefix?: string;
  timeoutMs?: number;
  startTimeoutMs?: number;
  enabled?: boolean;
  sampling?: McpSamplingConfig;
  elicitation?: boolean;
}

/**
 * Limits on a server's model requests, answered by the run whose tool call they come with:
 * true (or absent) for the defaults, false to refuse them all.
 */
export type McpSamplingConfig =
  | boolean
  | {
      /** The most tokens one request may have written (a request asking more gets this many; default 4096). */
      maxTokens?: number;
      /** How many requests one tool call may make (default 5); more are refused. */
      maxRequests?: number;
    };

/** OAuth for one HTTP server: how HubOS gets and keeps an access token (kept in the Store). */
export interface McpClientAuthConfig {
  /**
   * `authorization_code` (default): a person signs in through a browser, HubOS receives the code
   * on a loopback address. `client_credentials`: HubOS signs in as itself (`clientId` with
   * `clientSecret` or `privateKey`), no person involved.
   */
  grant?: 'authorization_code' | 'client_credentials';
  /** A client registered beforehand with the authorization server (default: HubOS registers itself). */
  clientId?: string;
  /** The pre-registered client's secret. */
  clientSecret?: string;
  /** client_credentials only: a PEM (PKCS#8) private key to sign in with a signed JWT (private_key_jwt). */
  privateKey?: string;
  /** The JWS algorithm of `privateKey` (default: from the key: RS256, ES256, ES384, ES512, EdDSA). */
  algorithm?: string;
  /** Scopes (space-separated) asked for when neither the server's challenge nor its metadata names any. */
  scope?: string;
  /** The port of the redirect `http://127.0.0.1:<port>/callback` (default: a free port, kept in the Store). */
  redirectPort?: number;
  /** An https URL of HubOS's Client ID Metadata Document: the client id where the server accepts one. */
  clientMetadataUrl?: string;
  /** The authorization server a pre-registered client belongs to: its credentials go to no other. */
  issuer?: string;
  /** How long to wait for the person to finish authorizing (default 5 min). */
  authorizationTimeoutMs?: number;
}

/** What `onAuthorize` is told: a server needs someone to authorize HubOS at `url`. */
export interface McpAuthorizationRequest {
  server: string;
  url: string;
  /** Until when the loopback address waits for the answer (ISO time). */
  expiresAt: string;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** What HubOS itself serves over MCP (at `/mcp` and with `hubos mcp`). */
export interface McpServeConfig {
  /** Tool names or globs to offer (default: every registered tool). */
  tools?: string[];
  /** Agents offered as `ask_<agent>` tools: true for all, or their names (default: none). */
  agents?: boolean | string[];
  /**
   * Resources to offer, by URI or URI template (names or globs): true or absent for every
   * registered one, false for none.
   */
  resources?: boolean | string[];
  /** Prompts to offer, by name or glob: true or absent for every registered one, false for none. */
  prompts?: boolean | string[];
  /** The HTTP path (default `/mcp`). */
  path?: string;
}

/** Restart policy for servers that fail to start or die: exponential backoff. */
export interface McpRestartConfig {
  /** The wait before the first retry (default 1 s); it doubles after each failure in a row. */
  initialDelayMs?: number;
  /** The longest wait between retries (default 60 s). */
  maxDelayMs?: number;
  /** Give up after this many failed attempts in a row (default: never). */
  maxAttempts?: number;
}

/** The `mcp` config key. */
export interface McpConfig {
  servers?: Record<string, McpServerConfig>;
  /** false turns the `/mcp` endpoint off. */
  serve?: McpServeConfig | false;
  restart?: McpRestartConfig;
  /**
   * How long boot waits for the servers' first start attempts (default 10 s). Servers still starting
   * then come up in the background; agents get their tools when they do.
   */
  bootWaitMs?: number;
  /**
   * Called when a server needs a person to authorize HubOS (OAuth): open `url` in their browser
   * (an app, the page). The URL is also logged. A function, so only in `agent.config.ts` or the
   * plugin's options.
   */
  onAuthorize?: (request: McpAuthorizationRequest) => void | Promise<void>;
}

export const MCP_CONFIG_SCHEMA = {
  type: 'object',
  description: 'MCP: servers whose tools HubOS uses, and what HubOS serves to MCP clients.',
  properties: {
    servers: MCP_SERVERS_SCHEMA,
    serve: {
      oneOf: [
        { const: false },
        {
          type: 'object',
          properties: {
            tools: { type: 'array', items: { type: 'string', minLength: 1 } },
            agents: {
              oneOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'string', minLength: 1 } }],
            },
            resources: {
              oneOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'string', minLength: 1 } }],
            },
            prompts: {
              oneOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'string', minLength: 1 } }],
            },
            path: { type: 'string', pattern: '^/' },
          },
          additionalProperties: false,
        },
      ],
    },
    restart: {
      type: 'object',
      properties: {
        initialDelayMs: { type: 'integer', minimum: 1 },
        maxDelayMs: { type: 'integer', minimum: 1 },
        maxAttempts: { type: 'integer', minimum: 1 },
      },
      additionalProperties: false,
    },
    bootWaitMs: { type: 'integer', minimum: 0 },
    onAuthorize: {
      description: 'A function called with { server, url, expiresAt } when a server needs authorizing.',
    },
  },
  additionalProperties: false,
} as const;
