import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../../core/index.ts';
import { type AskAgentRunner, askAgent } from './ask-agent.ts';
import { callRegistryTool } from './call-tool.ts';
import { knownLevel, logNotification } from './log-level.ts';
import { progressReporter } from './progress.ts';
import type { ServeContext } from './serve-context.ts';
import { describeServed, servedTools } from './served-tools.ts';
import { mcpInteraction } from './tool-interaction.ts';
import { errorResult } from './tool-result.ts';

export interface ToolServing {
  /** Told of each tool call while it runs (HTTP shutdown waits for them). */
  onCall?: (call: Promise<unknown>) => void;
  /** Settles when the server is shutting down past its drain: calls still running answer at once. */
  cutoff?: Promise<void>;
  /** Runs an `ask_<agent>` call (over HTTP, as a recorded run of the server); default `agent.run`. */
  runAgent?: AskAgentRunner;
}

const SHUTTING_DOWN = errorResult(
  'HubOS is shutting down: the call was stopped before it finished. Try again once the server is back.',
);

/**
 * `tools/list` and `tools/call`: the registry's tools `serve.tools` selects and the `ask_<agent>`
 * tools, called under the config's permission policy with the whole tool context — progress,
 * log messages, questions and sampling travel to the client with the call.
 */
export function serveTools(ctx: ServeContext, options: ToolServing): void {
  const { server, kernel, serve } = ctx;

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...servedTools(kernel, serve, ctx.mayUseAgent).values()].map(describeServed),
  }));

  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name, arguments: input = {} } = request.params;
    const call = (async (): Promise<CallToolResult> => {
      const served = servedTools(kernel, serve, ctx.mayUseAgent);
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
          principal: ctx.principal,
          log: (level, message, data) => {
            const known = knownLevel(level);
            if (ctx.logLevel.allows(known))
              extra.sendNotification(logNotification(name, known, message, data)).catch(() => undefined);
          },
          ...(options.runAgent ? { runAgent: options.runAgent } : {}),
        });
      }
      const progress = progressReporter(request.params._meta?.progressToken, extra.sendNotification);
      return callRegistryTool(kernel, target.tool, input, {
        server,
        policy: ctx.policy,
        requestId: extra.requestId,
        signal: extra.signal,
        principal: ctx.principal,
        approvalsElsewhere: ctx.approvalsElsewhere,
        ...(progress ? { progress } : {}),
        interaction: mcpInteraction({
          server,
          requestId: extra.requestId,
          sendNotification: extra.sendNotification,
          logLevel: ctx.logLevel,
          tool: name,
          timeoutMs: ctx.policy.approvalTimeoutMs,
        }),
      });
    })().catch((error: unknown) => errorResult(`the call to "${name}" failed: ${errorMessage(error)}`));
    // A client must not be left waiting on a call the shutdown cuts: it gets an answer saying so.
    const answered = options.cutoff ? Promise.race([call, options.cutoff.then(() => SHUTTING_DOWN)]) : call;
    options.onCall?.(answered);
    return answered;
  });
}
