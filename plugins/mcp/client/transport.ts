import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig, McpStdioServerConfig } from '../config.ts';
import { childEnv } from './child-env.ts';
import type { HubosOAuthProvider } from './oauth-provider.ts';
import { serverFetch } from './server-fetch.ts';
import { StderrTail } from './stderr-tail.ts';
import { isHttp, type TransportKind } from './transport-kind.ts';

export { describeTarget, isHttp, type TransportKind, transportKind } from './transport-kind.ts';

/** A stdio transport that remembers its child's pid: the SDK forgets it as soon as it starts closing. */
class ChildTransport extends StdioClientTransport {
  spawnedPid: number | null = null;

  override async start(): Promise<void> {
    await super.start();
    this.spawnedPid = this.pid;
  }
}

export interface OpenedTransport {
  transport: Transport;
  kind: TransportKind;
  /** stdio: what the process wrote to stderr lately. */
  stderr?: StderrTail;
  /** stdio: the child's pid once spawned (null before, or if it never started). */
  pid(): number | null;
}

/**
 * A fresh transport for one connection attempt. A stdio child gets a clean environment (see
 * `childEnv`), its stderr piped (never inherited: it would mix with HubOS's output) and its
 * working folder resolved from `baseDir` (the config file's folder). An HTTP server gets its
 * headers (on its origin only, see `serverFetch`) and OAuth through `oauth` when given.
 */
export function openTransport(
  config: McpServerConfig,
  baseDir: string,
  oauth?: HubosOAuthProvider,
): OpenedTransport {
  if (isHttp(config)) {
    if (!URL.canParse(config.url))
      throw new Error(`its url ${JSON.stringify(config.url)} is not a valid URL`);
    const serverUrl = new URL(config.url);
    const transport = new StreamableHTTPClientTransport(serverUrl, {
      ...(config.headers ? { requestInit: { headers: config.headers } } : {}),
      fetch: serverFetch({ serverUrl, headers: config.headers, oauth, allowHosts: config.allowHosts }),
      ...(oauth ? { authProvider: oauth } : {}),
    });
    return { transport, kind: 'http', pid: () => null };
  }
  const stdio = config as McpStdioServerConfig;
  const transport = new ChildTransport({
    command: stdio.command,
    args: stdio.args ?? [],
    env: childEnv(stdio.env),
    cwd: resolve(baseDir, stdio.cwd ?? '.'),
    stderr: 'pipe',
  });
  // With stderr: 'pipe' the SDK hands out a PassThrough right away, before the child starts.
  const stderr = new StderrTail(transport.stderr as Readable | null);
  return { transport, kind: 'stdio', stderr, pid: () => transport.spawnedPid };
}
