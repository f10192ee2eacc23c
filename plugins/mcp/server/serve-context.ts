import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Agent, KernelView, Policy } from '../../../core/index.ts';
import type { McpServeConfig } from '../config.ts';
import type { LogLevelGate } from './log-level.ts';
import type { Subscriptions } from './subscriptions.ts';

/** What one MCP session's handlers share: the kernel, what is served, to whom, and the session's state. */
export interface ServeContext {
  kernel: KernelView;
  server: Server;
  serve: McpServeConfig;
  policy: Policy;
  /** Who the session's requests are for: the caller's principal id (`local` over stdio). */
  principal: string;
  /** True where the app's approvals can be decided outside the session (HubOS's `/api/approvals`). */
  approvalsElsewhere: boolean;
  /** Which agents this caller may see and ask. */
  mayUseAgent: (agent: Agent) => boolean;
  logLevel: LogLevelGate;
  subscriptions: Subscriptions;
}
