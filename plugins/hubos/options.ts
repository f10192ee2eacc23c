export interface HubOSServerOptions {
  /** Port to listen on (0 picks a free one). Default: PORT, else 3000. */
  port?: number;
  /** Default 127.0.0.1. Binding beyond loopback requires API keys. */
  host?: string;
  /**
   * API keys clients send as `Authorization: Bearer <key>`; also HUBOS_API_KEYS (comma-separated).
   * Each key is its own identity: what one key starts, another cannot see. A string key's id is a
   * digest of it; `{ key, id }` names it; `admin: true` sees every identity's runs, approvals and tasks.
   */
  apiKeys?: (string | ApiKeyEntry)[];
  /**
   * Host names the server answers to (the `Host` header; 403 `HOST_NOT_ALLOWED` otherwise), besides
   * `localhost`, IP addresses, the bind host and the host of `publicUrl`. A leading dot allows
   * subdomains (`.example.com`); `true` allows any host (behind a proxy that checks it).
   */
  allowedHosts?: true | string[];
  /**
   * The URL clients reach the server at, when it is not the one it listens on (a proxy, a public
   * name): the source of absolute URLs (A2A cards) and an allowed host and origin. Also HUBOS_PUBLIC_URL.
   */
  publicUrl?: string;
  /**
   * Addresses of reverse proxies in front of the server (`['127.0.0.1']`): from them, the client's
   * address for rate limits and the wrong-key limit is read from `X-Forwarded-For`. Without it,
   * every client behind a proxy shares the proxy's address (and its limits).
   */
  trustProxy?: string[];
  /** Allowed CORS origins (`'*'` for any); none by default. Also the origins allowed to send state-changing requests. */
  cors?: { origin: string | string[] };
  /** Largest request body in bytes (413 beyond). Default 1 MiB. */
  bodyLimit?: number;
  /**
   * Requests per window per API key (or client address without auth); 429 beyond. `maxAuthFailures`
   * (default 20) wrong keys per client address and window get it too, even with `rateLimit: false`.
   */
  rateLimit?: { windowMs?: number; max?: number; maxAuthFailures?: number } | false;
  /**
   * How many queued runs (`?async=true`, A2A non-blocking sends) this instance runs at once; the
   * rest wait in the queue for this instance or another. Default 16.
   */
  maxConcurrentRuns?: number;
  /** Longest a JSON (non-streaming) request may take. Default 5 minutes. */
  requestTimeoutMs?: number;
  /** How long shutdown lets running work finish before cancelling it. Default 10 s. */
  shutdownTimeoutMs?: number;
  /** Prefix of the REST routes. Default `/api`. */
  apiPrefix?: string;
}

/** An API key with a name of its own: `id` shows in run records and logs instead of a digest. */
export interface ApiKeyEntry {
  /** The secret, at least 16 characters (`openssl rand -hex 24` makes one). */
  key: string;
  /** The principal id: letters, digits and `._@-`, not `local`, `anonymous` or `key:…`. */
  id: string;
  /** Sees (and may cancel or answer) every identity's runs, approvals, A2A tasks and workflow runs; sessions stay per key. */
  admin?: boolean;
}

export const SERVER_CONFIG_SCHEMA = {
  type: 'object',
  description: 'The HubOS HTTP server.',
  properties: {
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    host: { type: 'string', minLength: 1 },
    apiKeys: {
      type: 'array',
      items: {
        anyOf: [
          { type: 'string', minLength: 16 },
          {
            type: 'object',
            properties: {
              key: { type: 'string', minLength: 16 },
              id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$' },
              admin: { type: 'boolean' },
            },
            required: ['key', 'id'],
            additionalProperties: false,
          },
        ],
      },
    },
    allowedHosts: {
      anyOf: [{ const: true }, { type: 'array', items: { type: 'string', minLength: 1 } }],
    },
    publicUrl: { type: 'string', pattern: '^https?://' },
    trustProxy: { type: 'array', items: { type: 'string', minLength: 1 } },
    cors: {
      type: 'object',
      properties: { origin: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } },
      required: ['origin'],
      additionalProperties: false,
    },
    bodyLimit: { type: 'integer', minimum: 1024 },
    rateLimit: {
      anyOf: [
        { const: false },
        {
          type: 'object',
          properties: {
            windowMs: { type: 'integer', minimum: 1 },
            max: { type: 'integer', minimum: 1 },
            maxAuthFailures: { type: 'integer', minimum: 1 },
          },
          additionalProperties: false,
        },
      ],
    },
    maxConcurrentRuns: { type: 'integer', minimum: 1, maximum: 10000 },
    requestTimeoutMs: { type: 'integer', minimum: 1 },
    shutdownTimeoutMs: { type: 'integer', minimum: 0 },
    apiPrefix: { type: 'string', pattern: '^/[a-zA-Z0-9/_-]*$' },
  },
  additionalProperties: false,
} as const;

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
