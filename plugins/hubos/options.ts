export interface HubOSServerOptions {
  /** Port to listen on (0 picks a free one). Default: PORT, else 3000. */
  port?: number;
  /** Default 127.0.0.1. Binding beyond loopback requires API keys. */
  host?: string;
  /** API keys clients send as `Authorization: Bearer <key>`; also HUBOS_API_KEYS (comma-separated). */
  apiKeys?: string[];
  /** Allowed CORS origins (`'*'` for any); none by default. */
  cors?: { origin: string | string[] };
  /** Largest request body in bytes (413 beyond). Default 1 MiB. */
  bodyLimit?: number;
  /** Requests per window per API key (or client address without auth); 429 beyond. */
  rateLimit?: { windowMs?: number; max?: number } | false;
  /** Longest a JSON (non-streaming) request may take. Default 5 minutes. */
  requestTimeoutMs?: number;
  /** How long shutdown lets running work finish before cancelling it. Default 10 s. */
  shutdownTimeoutMs?: number;
  /** Prefix of the REST routes. Default `/api`. */
  apiPrefix?: string;
}

export const SERVER_CONFIG_SCHEMA = {
  type: 'object',
  description: 'The HubOS HTTP server.',
  properties: {
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    host: { type: 'string', minLength: 1 },
    apiKeys: { type: 'array', items: { type: 'string', minLength: 16 } },
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
          properties: { windowMs: { type: 'integer', minimum: 1 }, max: { type: 'integer', minimum: 1 } },
          additionalProperties: false,
        },
      ],
    },
    requestTimeoutMs: { type: 'integer', minimum: 1 },
    shutdownTimeoutMs: { type: 'integer', minimum: 0 },
    apiPrefix: { type: 'string', pattern: '^/[a-zA-Z0-9/_-]*$' },
  },
  additionalProperties: false,
} as const;

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
