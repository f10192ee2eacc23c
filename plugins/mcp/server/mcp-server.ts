import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type Agent, createPolicy, errorMessage, type KernelView } from '../../../core/index.ts';
import type { McpServeConfig } from '../config.ts';
import { type AskAgentRunner, askAgent } from './ask-agent.ts';
import { callRegistryTool } from './call-tool.ts';
import { onToolListChange } from './list-changes.ts';
import { progressReporter } from './progress.ts';
import { describeServed, servedTools } from './served-tools.ts';
import { errorResult } from './tool-result.ts';

export interface McpServerOptions {
  /** What to serve (default: every registered tool, no agents). */
  serve?: McpServeConfig;
  /** The server's name and version, as `initialize` reports them. */
  name?: string;
  version?: string;
  /** Told of each tool call while it runs (HTTP shutdown waits for them). */
  onCall?: (call: Promise<unknown>) => void;
  /** Settles when the server is shutting down past its drain: calls still running answer at once. */
  cutoff?: Promise<void>;
  /**
   * Who the session's calls are for (over HTTP, the API key's principal id): given to tools as
   * `tc.principal`, and `ask_<agent>` runs and their sessions are that caller's. Default `local`.
   */
  principal?: string;
  /** Which agents this session may ask (`ask_<agent>`), beyond `serve.agents`; default all. */
  mayUseAgent?: (agent: Agent) => boolean;
  /** Runs an `ask_<agent>` call (over HTTP, as a recorded run of the server); default `agent.run`. */
  runAgent?: AskAgentRunner;
}

const SHUTTING_DOWN = errorResult(
  'HubOS is shutting down: the call was stopped before it finished. Try again once the server is back.',
);

/**
 * An MCP server (the SDK's low-level `Server`, tools capability) over a booted kernel: the
 * kernel's tools and `ask_<agent>` tools, called under the config's permission policy. Connect
 * it to one transport; closing it stops its list-change notifications.
 */
export function createMcpServer(kernel: KernelView, options: McpServerOptions = {}): Server {
  const serve = options.serve ?? {};
  const server = new Server(
    { name: options.name ?? 'hubos', version: options.version ?? '0.0.0' },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: 'Tools of a HubOS app. Some calls may need your approval, as its permission policy says.',
    },
  );
  const policy = createPolicy(kernel.config.permissions);

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...servedTools(kernel, serve, options.mayUseAgent).values()].map(describeServed),
  }));

  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name, arguments: input = {} } = request.params;
    const call = (async (): Promise<CallToolResult> => {
      const served = servedTools(kernel, serve, options.mayUseAgent);
      const target = served.get(name);
      if (!target) {
        const known = [...served.keys()].join(', ') || 'none';
        return errorResult(`no tool named "${name}" is served here (tools: ${known})`);
      }
      if (target.kind === 'agent') {
        return askAgent(target.agent, input, {
          server,
          requestId: extra.requestId,
          signal: extra.signal,
          logger: kernel.logger,
          principal: options.principal ?? 'local',
          ...(options.runAgent ? { runAgent: options.runAgent } : {}),
        });
      }
      const progress = progressReporter(request.params._meta?.progressToken, extra.sendNotification);
      return callRegistryTool(kernel, target.tool, input, {
        server,
        policy,
        requestId: extra.requestId,
        signal: extra.signal,
        principal: options.principal ?? 'local',
        ...(progress ? { progress } : {}),
      });
    })().catch((error: unknown) => errorResult(`the call to "${name}" failed: ${errorMessage(error)}`));
    // A client must not be left waiting on a call the shutdown cuts: it gets an answer saying so.
    const answered = options.cutoff ? Promise.race([call, options.cutoff.then(() => SHUTTING_DOWN)]) : call;
    options.onCall?.(answered);
    return answered;
  });

  const stopWatching = onToolListChange(kernel, () => {
    // Only a connected, initialized client is told; one that is gone is simply skipped.
    if (server.transport && server.getClientCapabilities())
      server.sendToolListChanged().catch(() => undefined);
  });
  server.onclose = stopWatching;
  return server;
}
