import type { SyncedTool } from './tool-sync.ts';
import type { TransportKind } from './transport-kind.ts';

/**
 * `starting` (an attempt is under way), `authorizing` (the server asked for OAuth: waiting for a
 * person to authorize HubOS, see `authorization`), `ready`, `failed` (the last attempt failed or
 * the connection was lost; see `nextRetryAt`, absent once it gave up), `stopped`
 * (`enabled: false`), `closed` (the kernel closed).
 */
export type McpServerState = 'starting' | 'authorizing' | 'ready' | 'failed' | 'stopped' | 'closed';

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
  /**
   * Set while a person is asked to authorize HubOS (OAuth): the URL to open, and until when the
   * answer is waited for (ISO time). While connecting (`authorizing`), or for more scope when ready.
   */
  authorization?: { url: string; expiresAt: string };
}
