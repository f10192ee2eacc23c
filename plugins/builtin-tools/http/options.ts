import type { DnsResolver } from '../../../core/index.ts';

export interface HttpToolOptions {
  /**
   * Hostnames, IP addresses or CIDR ranges the tools may reach even though they are internal
   * (loopback, private, link-local, metadata). A hostname allows whatever it resolves to.
   */
  allowHosts?: string[];
  /** Response bodies are cut here (and `truncated` set). Default 1 MiB. */
  maxBodyBytes?: number;
  /** The `timeout` a call gets when it names none (ms). Default 30 s; calls may ask up to 120 s. */
  timeoutMs?: number;
  /** Redirects followed per call, each re-checked. Default 5. */
  maxRedirects?: number;
  /** DNS lookup used for the address check and for connecting. */
  resolver?: DnsResolver;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const MAX_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_REDIRECTS = 5;

/** The `http` config key: what the built-in HTTP tools may reach and how much they read. */
export const HTTP_CONFIG_SCHEMA = {
  type: 'object',
  description: 'The built-in http_get/post/put/delete tools.',
  properties: {
    allowHosts: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description:
        'Hostnames, IPs or CIDR ranges allowed even though internal (loopback, private, link-local, metadata).',
    },
    maxBodyBytes: { type: 'integer', minimum: 1, description: 'Response body cap in bytes (default 1 MiB).' },
    timeoutMs: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_TIMEOUT_MS,
      description: 'Default per-call timeout in ms (default 30000).',
    },
    maxRedirects: { type: 'integer', minimum: 0, description: 'Redirects followed per call (default 5).' },
  },
  additionalProperties: false,
} as const;
