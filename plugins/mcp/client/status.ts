import type { SyncedTool } from './tool-sync.ts';
import type { TransportKind } from './transport.ts';

/**
 * `starting` (an attempt is under way), `ready`, `failed` (the last attempt failed or the connection
 * was lost; see `nextRetryAt`, absent once it gave up), `stopped` (`enabled: false`), `closed`
 * (the kernel closed).
 */
export type McpServerState = 'starting' | 'ready' | 'failed' | 'stopped' | 'closed';

/** One configured MCP server as HubOS sees it now. */
export interface McpServerStatus {
  name: string;
  transport: TransportKind;
  /** The command line, or the URL without its query. */
  target: string;
  state: McpServerState;
  /** Since when it is in this state (ISO time). */
  since: string;
  /** Its tools in the registry (they stay there while it is down). */
  tools: SyncedTool[];
  /** Why the last attempt failed or the connection was lost (kept while starting again). */
  error?: string;
  /** The last lines a stdio server wrote to stderr before it failed. */
  stderr?: string[];
  /** Failed attempts in a row. */
  attempts: number;
  /** When the next attempt starts (ISO time), while one is planned. */
  nextRetryAt?: string;
  /** What the server said it is, once connected. */
  server?: { name: string; version: string };
}
