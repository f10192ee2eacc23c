import type { McpHttpServerConfig, McpServerConfig } from '../config.ts';

// Apart from transport.ts, so that checking a config does not load the MCP SDK's transports.

export type TransportKind = 'stdio' | 'http';

export function transportKind(config: McpServerConfig): TransportKind {
  return 'url' in config ? 'http' : 'stdio';
}

export function isHttp(config: McpServerConfig): config is McpHttpServerConfig {
  return 'url' in config;
}

/** What is reached: the command line, or the URL without its query (which may carry a key). */
export function describeTarget(config: McpServerConfig): string {
  if (isHttp(config)) {
    if (!URL.canParse(config.url)) return config.url.split(/[?#]/)[0]!;
    const url = new URL(config.url);
    return `${url.origin}${url.pathname}`;
  }
  return [config.command, ...(config.args ?? [])].join(' ');
}
