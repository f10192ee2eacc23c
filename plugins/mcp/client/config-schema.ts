/** JSON Schema of `mcp.servers`: the MCP servers HubOS uses as tool sources. */

const SAMPLING_SCHEMA = {
  description: "The server's model requests: true (the defaults), false (refused), or limits.",
  oneOf: [
    { type: 'boolean' },
    {
      type: 'object',
      properties: {
        maxTokens: {
          type: 'integer',
          minimum: 1,
          description: 'The most tokens one request may have written.',
        },
        maxRequests: {
          type: 'integer',
          minimum: 0,
          description: 'How many requests one tool call may make.',
        },
      },
      additionalProperties: false,
    },
  ],
} as const;

const AUTH_SCHEMA = {
  description: 'OAuth when the server asks for it (default: a person authorizes in a browser); false: never.',
  oneOf: [
    { const: false },
    {
      type: 'object',
      properties: {
        grant: { enum: ['authorization_code', 'client_credentials'] },
        clientId: { type: 'string', minLength: 1 },
        clientSecret: { type: 'string', minLength: 1 },
        privateKey: { type: 'string', minLength: 1 },
        algorithm: { type: 'string', pattern: '^((RS|PS|ES)(256|384|512)|EdDSA)$' },
        scope: { type: 'string' },
        redirectPort: { type: 'integer', minimum: 1, maximum: 65_535 },
        clientMetadataUrl: { type: 'string', pattern: '^https://[^/]+/.+' },
        issuer: { type: 'string', pattern: '^https?://' },
        authorizationTimeoutMs: { type: 'integer', minimum: 1 },
      },
      additionalProperties: false,
    },
  ],
} as const;

const COMMON = {
  prefix: {
    type: 'string',
    pattern: '^[A-Za-z0-9_-]*$',
    description: 'Tool names become <prefix>_<tool> (default: the server name; "" for none).',
  },
  timeoutMs: { type: 'integer', minimum: 1 },
  startTimeoutMs: { type: 'integer', minimum: 1 },
  enabled: { type: 'boolean' },
  sampling: SAMPLING_SCHEMA,
  elicitation: { type: 'boolean' },
} as const;

export const MCP_SERVERS_SCHEMA = {
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
          ...COMMON,
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
          auth: AUTH_SCHEMA,
          allowHosts: {
            type: 'array',
            items: { type: 'string', minLength: 1 },
            description:
              'Hosts (names, IPs, CIDR ranges) the server may lead HubOS to though internal, such as its authorization server.',
          },
          ...COMMON,
        },
        required: ['url'],
        additionalProperties: false,
      },
    ],
  },
} as const;
