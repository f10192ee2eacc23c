import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  type AgentEvent,
  type ApprovalRequestEvent,
  errorMessage,
  type KernelView,
  type Policy,
  type Tool,
  type ToolInteraction,
} from '../../../core/index.ts';
import { askApproval, canElicit } from './approval.ts';
import { callToolResult, errorResult } from './tool-result.ts';

export interface CallContext {
  server: Server;
  policy: Policy;
  requestId: RequestId;
  signal: AbortSignal;
  /** Who the call is for: `tc.principal`. */
  principal: string;
  /**
   * True where the app's approvals can be decided outside this session (HubOS's
   * `GET /api/approvals`): an `ask` then waits for a decision there when the client cannot elicit.
   */
  approvalsElsewhere?: boolean;
  /** Set when the client asked for progress (`_meta.progressToken`): where `tc.progress` goes. */
  progress?: (data: unknown) => void;
  /** Where `tc.log`, `tc.elicit` and `tc.sample` go: the client, as far as it can take them. */
  interaction?: ToolInteraction;
}

/** The agent id tools see for calls that come from an MCP client. */
export const MCP_AGENT_ID = 'mcp';

const CANNOT_ASK =
  "this MCP client cannot ask you for it (it does not support elicitation). To run it without asking, move the rule from the config's `permissions.ask` to `permissions.allow`, or use a client that supports elicitation.";

/**
 * Calls a registry tool for an MCP client through the kernel's tool pipeline (`kernel.tools.call`,
 * `via: 'mcp'`): the config's permission policy decides first, and the kernel's tool-call hooks
 * see the call as any other. Each call is a run of its own (a fresh run id): an `ask` is one of the
 * engine's approvals — stored, listed by `GET /api/approvals` and decidable there — which the
 * client's user answers through elicitation when the client can; without elicitation it waits for
 * a decision made elsewhere, or, where there is no elsewhere (stdio), is refused at once. The tool's
 * log, questions and sampling go to the client. Failures of any kind are `isError` results.
 */
export async function callRegistryTool(
  kernel: KernelView,
  tool: Tool,
  input: unknown,
  ctx: CallContext,
): Promise<CallToolResult> {
  const elicits = canElicit(ctx.server);
  const result = await kernel.tools.call({
    call: { id: `mcp-${String(ctx.requestId)}`, name: tool.name, input },
    run: {
      runId: randomUUID(),
      agent: MCP_AGENT_ID,
      sessionId: undefined,
      principal: ctx.principal,
      via: 'mcp',
      input: '',
      signal: ctx.signal,
    },
    // The session already chose what it serves: the call reaches this tool and no other.
    tools: new Map([[tool.name, tool]]),
    policy: ctx.policy,
    agentId: MCP_AGENT_ID,
    ...(elicits ? { emit: relayApprovals(kernel, ctx) } : {}),
    ...(!elicits && !ctx.approvalsElsewhere ? { approvalUnavailable: CANNOT_ASK } : {}),
    ...(ctx.progress ? { progress: ctx.progress } : {}),
    ...(ctx.interaction ? { interaction: ctx.interaction } : {}),
  });
  // A refusal by a `deny` rule tells the client's user where that rule is.
  if (!result.ok && result.error.code === 'TOOL_DENIED' && ctx.policy.decide(tool).decision === 'deny')
    return errorResult(
      `${result.error.message}. To allow it, remove or narrow that rule in the config's \`permissions.deny\`.`,
    );
  return callToolResult(result);
}

/**
 * Puts each approval request of the call to the client's user and records the answer as the
 * approval's decision. A decision made elsewhere first (the HubOS page) withdraws the question.
 */
function relayApprovals(kernel: KernelView, ctx: CallContext): (event: AgentEvent) => void {
  const open = new Map<string, AbortController>();
  return (event) => {
    if (event.type === 'approval-result') open.get(event.callId)?.abort();
    if (event.type !== 'approval-request') return;
    const withdrawn = new AbortController();
    open.set(event.callId, withdrawn);
    void decideByElicitation(kernel, ctx, event, AbortSignal.any([ctx.signal, withdrawn.signal])).finally(
      () => open.delete(event.callId),
    );
  };
}

async function decideByElicitation(
  kernel: KernelView,
  ctx: CallContext,
  event: ApprovalRequestEvent,
  signal: AbortSignal,
): Promise<void> {
  const needs = event.permissions.join(', ') || event.tool;
  const answer = await askApproval(ctx.server, {
    action: `the tool "${event.tool}" to run`,
    why: event.rule ? `${needs} (rule ask '${event.rule}')` : needs,
    input: event.input,
    timeoutMs: Math.max(1, Date.parse(event.expiresAt) - Date.now()),
    requestId: ctx.requestId,
    signal,
  });
  if (signal.aborted) return;
  try {
    await kernel.approvals.decide(event.runId, event.callId, {
      approved: answer.approved,
      by: ctx.principal,
      ...(answer.reason ? { reason: answer.reason } : {}),
    });
  } catch (error) {
    // Decided elsewhere meanwhile, expired, or the call ended: its outcome stands.
    kernel.logger.debug(`mcp: approval of ${event.tool} not recorded: ${errorMessage(error)}`);
  }
}
