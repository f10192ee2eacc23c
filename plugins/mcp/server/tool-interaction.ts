import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CreateMessageRequestParams,
  type ElicitRequestFormParams,
  ErrorCode,
  McpError,
  type RequestId,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import {
  contentToText,
  type ElicitRequest,
  type ElicitResult,
  errorMessage,
  HubosError,
  type SampleRequest,
  type SampleResult,
  type ToolContent,
  type ToolInteraction,
} from '../../../core/index.ts';
import { checkElicitRequest } from '../../../core/internal.ts';
import { canElicit, canSample } from './approval.ts';
import { knownLevel, type LogLevelGate, logNotification } from './log-level.ts';

export interface CallChannel {
  server: Server;
  /** The tools/call being served: what the tool asks travels with it (on its SSE stream over HTTP). */
  requestId: RequestId;
  /** Sends a notification related to the call. */
  sendNotification: (notification: ServerNotification) => Promise<void>;
  logLevel: LogLevelGate;
  /** The calling tool: the logger its messages name. */
  tool: string;
  /** How long a question or a sampling request may wait for the client. */
  timeoutMs: number;
}

/**
 * A tool's `tc.log`, `tc.elicit` and `tc.sample` over MCP: log messages at or above the session's
 * level, questions as `elicitation/create` and completions as `sampling/createMessage` to the
 * client — each only when the client declared it can, else the tool hears why not.
 */
export function mcpInteraction(channel: CallChannel): Required<ToolInteraction> {
  return {
    log: (level, message, data) => {
      const known = knownLevel(level);
      if (!channel.logLevel.allows(known)) return;
      channel.sendNotification(logNotification(channel.tool, known, message, data)).catch(() => undefined); // the client may be gone: the tool goes on
    },
    elicit: (request, signal) => elicit(channel, request, signal),
    sample: (request, signal) => sample(channel, request, signal),
  };
}

async function elicit(
  channel: CallChannel,
  request: ElicitRequest,
  signal: AbortSignal,
): Promise<ElicitResult> {
  const { server } = channel;
  if (!canElicit(server)) {
    throw new HubosError(
      'ELICITATION_UNAVAILABLE',
      `cannot ask "${String(request?.message).slice(0, 80)}": this MCP client did not declare the elicitation capability, so it cannot put questions to its user. Use a client that supports elicitation, or go on without asking.`,
    );
  }
  checkElicitRequest(request);
  try {
    const answer = await server.elicitInput(
      {
        mode: 'form',
        message: request.message,
        requestedSchema: request.schema as ElicitRequestFormParams['requestedSchema'],
      },
      { relatedRequestId: channel.requestId, signal, timeout: channel.timeoutMs },
    );
    if (answer.action !== 'accept') return { action: answer.action };
    return { action: 'accept', content: withDefaults(request, answer.content ?? {}) };
  } catch (error) {
    if (signal.aborted) return { action: 'cancel', reason: 'the call ended before an answer came' };
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
      return { action: 'cancel', reason: `nobody answered within ${channel.timeoutMs} ms` };
    throw new Error(`the MCP client could not answer the question: ${errorMessage(error)}`);
  }
}

/** The answer with the schema's defaults for the fields the user left out, as `tc.elicit` promises. */
function withDefaults(request: ElicitRequest, content: Record<string, unknown>): Record<string, unknown> {
  const filled = { ...content };
  const properties = (request.schema.properties ?? {}) as Record<string, { default?: unknown }>;
  for (const [name, property] of Object.entries(properties)) {
    if (filled[name] === undefined && property?.default !== undefined) filled[name] = property.default;
  }
  return filled;
}

async function sample(
  channel: CallChannel,
  request: SampleRequest,
  signal: AbortSignal,
): Promise<SampleResult> {
  const { server } = channel;
  if (!canSample(server)) {
    throw new HubosError(
      'SAMPLING_UNAVAILABLE',
      'this MCP client did not declare the sampling capability, so it offers no model to complete with. Use a client that supports sampling, or go on without a completion.',
    );
  }
  if (!Array.isArray(request?.messages) || request.messages.length === 0)
    throw new HubosError('TOOL_INVALID', 'tc.sample(): `messages` must hold at least one message');
  const params: CreateMessageRequestParams = {
    messages: request.messages.map((message) => ({
      role: message.role,
      content:
        typeof message.content === 'string' ? { type: 'text', text: message.content } : message.content,
    })),
    maxTokens: request.maxTokens,
    ...(request.system !== undefined ? { systemPrompt: request.system } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.stopSequences !== undefined ? { stopSequences: request.stopSequences } : {}),
  };
  const result = await server.createMessage(params, {
    relatedRequestId: channel.requestId,
    signal,
    timeout: channel.timeoutMs,
  });
  const parts = (Array.isArray(result.content) ? result.content : [result.content]) as ToolContent[];
  return {
    text: parts.every((part) => part.type === 'text')
      ? parts.map((part) => part.text).join('')
      : contentToText(parts),
    model: result.model,
    ...(result.stopReason ? { stopReason: result.stopReason } : {}),
  };
}
