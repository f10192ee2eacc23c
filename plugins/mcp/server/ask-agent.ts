import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, ElicitRequestFormParams, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  type Agent,
  type AgentEvent,
  type ApprovalDecision,
  type ApprovalQuestion,
  type ApprovalRequestEvent,
  errorMessage,
  HubosError,
  type KernelView,
  type Logger,
  type RunResult,
  sessionKey,
  type ToolInteraction,
} from '../../../core/index.ts';
import { createAjv, describeErrors, matchesAnyGlob } from '../../../core/internal.ts';
import { askApproval, canElicit } from './approval.ts';

import { errorResult } from './tool-result.ts';

/** The input of every `ask_<agent>` tool. */
export const ASK_AGENT_SCHEMA = {
  type: 'object',
  properties: {
    message: { type: 'string', minLength: 1, description: 'What to ask or tell the agent.' },
    sessionId: {
      type: 'string',
      // As the REST routes' session ids: a store key of the caller's own, nothing that could name another's.
      pattern: '^[A-Za-z0-9._:-]{1,128}$',
      description:
        'Continue this conversation: the agent remembers the earlier messages of the same session. Omit for a one-off question.',
    },
  },
  required: ['message'],
  additionalProperties: false,
} as const;

const validate = createAjv().compile<{ message: string; sessionId?: string }>(ASK_AGENT_SCHEMA);

export const askToolName = (agentId: string): string => `ask_${agentId}`;

/** The agents `serve.agents` offers: `true` all but sub-agents (they live for one task), a list those named. */
export function servedAgents(kernel: KernelView, wanted: boolean | readonly string[] | undefined): Agent[] {
  if (!wanted) return [];
  const agents = kernel.listAgents().filter((agent) => !agent.spec.internal);
  return wanted === true ? agents : agents.filter((agent) => matchesAnyGlob(agent.id, wanted));
}

export function askToolDescription(agent: Agent): string {
  const about = agent.spec.description ? `: ${agent.spec.description}` : '.';
  return `Ask the agent "${agent.id}" and get its answer${about}`;
}

export interface AskContext {
  server: Server;
  requestId: RequestId;
  signal: AbortSignal;
  logger: Logger;
  /** Who the call is for: the run and its session are theirs. */
  principal: string;
  /** Runs the agent (the session id as the caller named it); default `agent.run` under the principal's session. */
  runAgent?: AskAgentRunner;
  /** Where the run's tools' log messages go (the session's log level applies). */
  log?: ToolInteraction['log'];
}

/** How an `ask_<agent>` call runs its agent (HubOS over HTTP: as a recorded run). */
export type AskAgentRunner = (
  agent: Agent,
  message: string,
  options: { sessionId?: string; signal: AbortSignal; onEvent: (event: AgentEvent) => void },
) => Promise<RunResult>;

/**
 * Runs the agent on the message and answers with its final text. The agent's own permission
 * policy applies to its tool calls; its `ask`s, and its tools' questions (`tc.elicit`), go to the
 * client's user when it can elicit, and are refused (with the reason, which the agent reads) when
 * it cannot. Its tools' log messages reach the client as log notifications.
 */
export async function askAgent(agent: Agent, input: unknown, ctx: AskContext): Promise<CallToolResult> {
  const name = askToolName(agent.id);
  if (!validate(input)) {
    const problems = describeErrors(validate.errors, input).join('; ');
    return errorResult(
      `invalid input for tool "${name}": ${problems}. Fix the arguments and call "${name}" again.`,
    );
  }
  try {
    const onEvent = (event: AgentEvent) => {
      if (event.type === 'approval-request') void relayApproval(agent, event, ctx);
      if (event.type === 'tool-log') ctx.log?.(event.level, event.message, event.data);
    };
    const result = ctx.runAgent
      ? await ctx.runAgent(agent, input.message, {
          ...(input.sessionId ? { sessionId: input.sessionId } : {}),
          signal: ctx.signal,
          onEvent,
        })
      : await agent.run(input.message, {
          signal: ctx.signal,
          principal: ctx.principal,
          via: 'mcp',
          ...(input.sessionId ? { sessionId: sessionKey(ctx.principal, input.sessionId) } : {}),
          onEvent,
        });
    if (result.status === 'cancelled') return errorResult(`the agent "${agent.id}" was cancelled`);
    if (result.text === '')
      return errorResult(`the agent "${agent.id}" stopped without an answer (${result.stopReason})`);
    return { content: [{ type: 'text', text: result.text }] };
  } catch (error) {
    return errorResult(`the agent "${agent.id}" failed: ${errorMessage(error)}${tripCode(error)}`);
  }
}

/** Answers one of the run's approval requests (or a tool's question) with the client's user's decision. */
async function relayApproval(agent: Agent, event: ApprovalRequestEvent, ctx: AskContext): Promise<void> {
  const decision = event.question
    ? await relayQuestion(event, event.question, ctx)
    : await askUser(event, ctx);
  try {
    // The MCP client's user answered, for the principal the call is for.
    await agent.approve(event.runId, event.callId, { ...decision, by: ctx.principal });
  } catch (error) {
    // Decided elsewhere meanwhile (the HubOS page, say), expired, or the run ended: nothing to do.
    ctx.logger.debug(
      `mcp: approval of ${event.tool} in run ${event.runId} not recorded: ${errorMessage(error)}`,
    );
  }
}

async function askUser(event: ApprovalRequestEvent, ctx: AskContext): Promise<ApprovalDecision> {
  const needs = event.permissions.join(', ') || event.tool;
  const why = event.rule ? `${needs} (rule ask '${event.rule}')` : needs;
  const answer = canElicit(ctx.server)
    ? await askApproval(ctx.server, {
        action: `the tool "${event.tool}" to run`,
        why,
        input: event.input,
        timeoutMs: untilExpiry(event),
        requestId: ctx.requestId,
        signal: ctx.signal,
      })
    : {
        approved: false,
        reason:
          "the MCP client cannot ask its user for approval (no elicitation support); allow the tool in the config's `permissions` to use it from MCP",
      };
  return { approved: answer.approved, ...(answer.reason ? { reason: answer.reason } : {}) };
}

/** A tool's question in the run, put to the client's user as it was asked; no answer declines it. */
async function relayQuestion(
  event: ApprovalRequestEvent,
  question: ApprovalQuestion,
  ctx: AskContext,
): Promise<ApprovalDecision> {
  if (!canElicit(ctx.server))
    return {
      approved: false,
      reason: 'the MCP client cannot put questions to its user (no elicitation support)',
    };
  try {
    const answer = await ctx.server.elicitInput(
      {
        mode: 'form',
        message: question.message,
        requestedSchema: question.schema as ElicitRequestFormParams['requestedSchema'],
      },
      { relatedRequestId: ctx.requestId, signal: ctx.signal, timeout: untilExpiry(event) },
    );
    if (answer.action === 'accept') return { approved: true, content: answer.content ?? {} };
    return {
      approved: false,
      reason: `the user ${answer.action === 'cancel' ? 'dismissed' : 'declined'} it`,
    };
  } catch (error) {
    return { approved: false, reason: `the question could not be asked: ${errorMessage(error)}` };
  }
}

const untilExpiry = (event: ApprovalRequestEvent): number =>
  Math.max(1, Date.parse(event.expiresAt) - Date.now());

/** A guardrail's trip says so by its code, as the other faces do. */
function tripCode(error: unknown): string {
  return HubosError.is(error, 'GUARDRAIL_TRIPPED') ? ' [GUARDRAIL_TRIPPED]' : '';
}
