import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  executeTool,
  type KernelView,
  type Policy,
  type Tool,
  type ToolInteraction,
} from '../../../core/index.ts';
import { describeVerdict } from '../../../core/internal.ts';
import { askApproval, canElicit } from './approval.ts';
import { callToolResult, errorResult } from './tool-result.ts';

export interface CallContext {
  server: Server;
  policy: Policy;
  requestId: RequestId;
  signal: AbortSignal;
  /** Who the call is for: `tc.principal`. */
  principal: string;
  /** Set when the client asked for progress (`_meta.progressToken`): where `tc.progress` goes. */
  progress?: (data: unknown) => void;
  /** Where `tc.log`, `tc.elicit` and `tc.sample` go: the client, as far as it can take them. */
  interaction?: ToolInteraction;
}

/** The agent id tools see for calls that come from an MCP client. */
export const MCP_AGENT_ID = 'mcp';

/**
 * Calls a registry tool for an MCP client: the config's permission policy decides first (`deny`
 * refuses, `ask` asks the client's user through elicitation when it can), then the tool runs as
 * an agent's call would, its log, questions and sampling sent to the client. Failures of any kind
 * are `isError` results the model can read; rich results keep their content parts.
 */
export async function callRegistryTool(
  kernel: KernelView,
  tool: Tool,
  input: unknown,
  ctx: CallContext,
): Promise<CallToolResult> {
  const verdict = ctx.policy.decide(tool);
  const why = describeVerdict(verdict, tool);
  if (verdict.decision === 'deny') {
    return errorResult(
      `the permission policy denies "${tool.name}": ${why}. To allow it, remove or narrow that rule in the config's \`permissions.deny\`.`,
    );
  }
  if (verdict.decision === 'ask') {
    if (!canElicit(ctx.server)) {
      return errorResult(
        `"${tool.name}" needs approval (${why}), and this MCP client cannot ask you for it (it does not support elicitation). ` +
          "To run it without asking, move the rule from the config's `permissions.ask` to `permissions.allow`, or use a client that supports elicitation.",
      );
    }
    const checked = kernel.registry.checkInput(tool.name, input);
    // Invalid input is refused before anyone is asked about it.
    if (!checked.ok) return errorResult(checked.message);
    const answer = await askApproval(ctx.server, {
      action: `the tool "${tool.name}" to run`,
      why,
      input: checked.input,
      timeoutMs: ctx.policy.approvalTimeoutMs,
      requestId: ctx.requestId,
      signal: ctx.signal,
    });
    if (!answer.approved) return errorResult(`"${tool.name}" did not run: ${answer.reason}.`);
  }
  const result = await executeTool(kernel.registry, tool.name, input, {
    signal: ctx.signal,
    agentId: MCP_AGENT_ID,
    sandbox: kernel.sandbox,
    store: kernel.store,
    principal: ctx.principal,
    ...(ctx.progress ? { progress: ctx.progress } : {}),
    ...ctx.interaction,
  });
  return callToolResult(result);
}
