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
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpServerConfig {
  url: string;
  /** Sent with every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
  prefix?: string;
  timeoutMs?: number;
  startTimeoutMs?: number;
  enabled?: boolean;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** What HubOS itself serves over MCP (at `/mcp` and with `hubos mcp`). */
export interface McpServeConfig {
  /** Tool names or globs to offer (default: every registered tool). */
  tools?: string[];
  /** Agents offered as `ask_<agent>` tools: true for all, or their names (default: none). */
  agents?: boolean | string[];
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
}

const common = {
  prefix: {
    type: 'string',
    pattern: '^[A-Za-z0-9_-]*$',
    description: 'Tool names become <prefix>_<tool> (default: the server name; "" for none).',
  },
  timeoutMs: { type: 'integer', minimum: 1 },
  startTimeoutMs: { type: 'integer', minimum: 1 },
  enabled: { type: 'boolean' },
} as const;

export const MCP_CONFIG_SCHEMA = {
  type: 'object',
  description: 'MCP: servers whose tools HubOS uses, and what HubOS serves to MCP clients.',
  properties: {
    servers: {
      type: 'object',
      propertyNames: { pattern: '^[A-Za-z0-9_-]+$' },
      additionalProperties: {
        oneOf: [
          {
            type: 'object',
            description: 'A stdio server: HubOS starts it as a child process.',
            properties: {
              command: { type: 'string', minLength: 1 },
              args: { type: 'array', items: { type: 'string' } },
              env: {
                oneOf: [
                  { type: 'array', items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
                  { type: 'object', additionalProperties: { type: 'string' } },
                ],
              },
              cwd: { type: 'string', minLength: 1 },
              ...common,
            },
            required: ['command'],
            additionalProperties: false,
          },
          {
            type: 'object',
            description: 'A Streamable HTTP server.',
            properties: {
              url: { type: 'string', pattern: '^https?://' },
              headers: { type: 'object', additionalProperties: { type: 'string' } },
              ...common,
            },
            required: ['url'],
            additionalProperties: false,
          },
        ],
      },
    },
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
  },
  additionalProperties: false,
} as const;
