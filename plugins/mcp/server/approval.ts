import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../../core/index.ts';

export interface ApprovalQuestion {
  /** What would happen, as the question names it: `the tool "x" to run`, `reading the resource "uri"`. */
  action: string;
  /** Why it is asked, e.g. `shell:exec (rule ask 'shell:*')`. */
  why: string;
  /** The call's input, shown to the user; absent for what has none (a resource read). */
  input?: unknown;
  timeoutMs: number;
  /** The request being answered: the question travels with it (on its SSE stream over HTTP). */
  requestId: RequestId;
  signal: AbortSignal;
}

export interface ApprovalAnswer {
  approved: boolean;
  /** Why not, in words for the model. */
  reason?: string;
}

/** Whether the connected client can ask its user a question (form elicitation). */
export function canElicit(server: Server): boolean {
  return server.getClientCapabilities()?.elicitation?.form !== undefined;
}

/** Whether the connected client offers its model for sampling. */
export function canSample(server: Server): boolean {
  return server.getClientCapabilities()?.sampling !== undefined;
}

const APPROVE_SCHEMA = {
  type: 'object',
  properties: {
    approve: {
      type: 'boolean',
      title: 'Approve',
      description: 'Go ahead (uncheck, or decline, to refuse).',
      default: true,
    },
  },
} as const;

/** Asks the client's user to approve something; never throws (no answer is a refusal). */
export async function askApproval(server: Server, question: ApprovalQuestion): Promise<ApprovalAnswer> {
  const { action, why, timeoutMs } = question;
  const input = question.input === undefined ? '' : `\nInput: ${preview(question.input)}`;
  try {
    const answer = await server.elicitInput(
      {
        mode: 'form',
        message: `Allow ${action}? It needs ${why}.${input}`,
        requestedSchema: APPROVE_SCHEMA,
      },
      { relatedRequestId: question.requestId, signal: question.signal, timeout: timeoutMs },
    );
    if (answer.action === 'accept' && answer.content?.approve !== false) return { approved: true };
    const how = answer.action === 'cancel' ? 'dismissed the approval request' : 'denied the call';
    return { approved: false, reason: `the user ${how}` };
  } catch (error) {
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return { approved: false, reason: `no answer to the approval request within ${timeoutMs} ms` };
    }
    return { approved: false, reason: `the approval request failed: ${errorMessage(error)}` };
  }
}

/** The input as the user sees it: JSON, cut short. */
function preview(input: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(input) ?? '{}';
  } catch {
    json = String(input);
  }
  return json.length > 1000 ? `${json.slice(0, 1000)}…` : json;
}
