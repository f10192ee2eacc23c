import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type ServerCapabilities, SetLevelRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type Agent, hubosVersion, type KernelView } from '../../../core/index.ts';
import { createPolicy } from '../../../core/internal.ts';
import type { McpServeConfig } from '../config.ts';
import type { AskAgentRunner } from './ask-agent.ts';
import { serveCompletions } from './completion-handler.ts';
import { onPromptListChange, onResourceListChange, onToolListChange } from './list-changes.ts';
import { LogLevelGate } from './log-level.ts';
import { servePrompts } from './prompt-handlers.ts';
import { serveResources } from './resource-handlers.ts';
import type { ServeContext } from './serve-context.ts';
import { servedPrompts } from './served-prompts.ts';
import { servedResources, servedTemplates } from './served-resources.ts';
import { Subscriptions } from './subscriptions.ts';
import { serveTools } from './tool-handlers.ts';

export interface McpServerOptions {
  /** What to serve (default: every registered tool, resource and prompt, no agents). */
  serve?: McpServeConfig;
  /** The server's name and version, as `initialize` reports them (default `hubos` and HubOS's version). */
  name?: string;
  version?: string;
  /** Told of each tool call while it runs (HTTP shutdown waits for them). */
  onCall?: (call: Promise<unknown>) => void;
  /** Settles when the server is shutting down past its drain: calls still running answer at once. */
  cutoff?: Promise<void>;
  /**
   * Who the session's calls are for (over HTTP, the API key's principal id): given to tools as
   * `tc.principal`, to resources and prompts as `principal`, and `ask_<agent>` runs and their
   * sessions are that caller's. Default `local`.
   */
  principal?: string;
  /** Which agents this session may ask (`ask_<agent>`), beyond `serve.agents`; default all. */
  mayUseAgent?: (agent: Agent) => boolean;
  /** Runs an `ask_<agent>` call (over HTTP, as a recorded run of the server); default `agent.run`. */
  runAgent?: AskAgentRunner;
  /**
   * True where the app's approvals can be decided outside the session (HubOS's
   * `GET /api/approvals`): a call the policy asks about then waits for a decision there when the
   * client cannot elicit. Default false: such a call is refused at once, saying why.
   */
  approvalsElsewhere?: boolean;
}

/**
 * An MCP server (the SDK's low-level `Server`) over a booted kernel, for one session: the kernel's
 * tools and `ask_<agent>` tools (called under the config's permission policy), its resources and
 * prompts, completions, and log messages at the level the client sets. It declares the resources
 * and prompts capabilities only when it has some to serve. Connect it to one transport; closing it
 * stops its notifications.
 */
export function createMcpServer(kernel: KernelView, options: McpServerOptions = {}): Server {
  const serve = options.serve ?? {};
  const ctx = {
    kernel,
    serve,
    policy: createPolicy(kernel.config.permissions),
    principal: options.principal ?? 'local',
    approvalsElsewhere: options.approvalsElsewhere ?? false,
    mayUseAgent: options.mayUseAgent ?? (() => true),
    logLevel: new LogLevelGate(),
    subscriptions: new Subscriptions(),
  };
  const hasResources = servedResources(kernel, serve).length + servedTemplates(kernel, serve).length > 0;
  const hasPrompts = servedPrompts(ctx).size > 0;
  const capabilities: ServerCapabilities = {
    tools: { listChanged: true },
    logging: {},
    ...(hasResources ? { resources: { subscribe: true, listChanged: true } } : {}),
    ...(hasPrompts ? { prompts: { listChanged: true } } : {}),
    ...(hasResources || hasPrompts ? { completions: {} } : {}),
  };
  const server = new Server(
    { name: options.name ?? 'hubos', version: options.version ?? hubosVersion() },
    {
      capabilities,
      instructions:
        'Tools, resources and prompts of a HubOS app. Some calls and reads may need your approval, as its permission policy says.',
    },
  );
  const session: ServeContext = { ...ctx, server };

  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    session.logLevel.set(request.params.level);
    return {};
  });
  serveTools(session, {
    ...(options.onCall ? { onCall: options.onCall } : {}),
    ...(options.cutoff ? { cutoff: options.cutoff } : {}),
    ...(options.runAgent ? { runAgent: options.runAgent } : {}),
  });
  if (hasResources) serveResources(session);
  if (hasPrompts) servePrompts(session);
  if (hasResources || hasPrompts) serveCompletions(session);

  // Only a connected, initialized client is told; one that is gone is simply skipped.
  const connected = () => server.transport !== undefined && server.getClientCapabilities() !== undefined;
  const stops = [
    onToolListChange(kernel, () => {
      if (connected()) server.sendToolListChanged().catch(() => undefined);
    }),
  ];
  if (hasResources) {
    stops.push(
      onResourceListChange(kernel, () => {
        if (connected()) server.sendResourceListChanged().catch(() => undefined);
      }),
      kernel.resources.onUpdated((uri) => {
        if (connected() && session.subscriptions.has(uri))
          server.sendResourceUpdated({ uri }).catch(() => undefined);
      }),
    );
  }
  if (hasPrompts) {
    stops.push(
      onPromptListChange(kernel, () => {
        if (connected()) server.sendPromptListChanged().catch(() => undefined);
      }),
    );
  }
  server.onclose = () => {
    for (const stop of stops) stop();
  };
  return server;
}
