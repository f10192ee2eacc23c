import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  SamplingMessageContentBlock,
} from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  type AudioContent,
  contentToText,
  errorMessage,
  HubosError,
  type ImageContent,
  type SampleMessage,
  type TextContent,
} from '../../../core/index.ts';
import type { McpSamplingConfig } from '../config.ts';
import { toContent } from './call-result.ts';
import type { CallInFlight } from './calls-in-flight.ts';

export const DEFAULT_SAMPLING = { maxTokens: 4_096, maxRequests: 5 } as const;

/** The text a server may put before the model in one request: beyond it, the request is refused. */
export const MAX_SAMPLING_PROMPT_CHARS = 100_000;

/** MCP's code for a request its user (here: HubOS's policy) refused. */
const REFUSED = -1;

export interface SamplingPolicy {
  maxTokens: number;
  maxRequests: number;
}

/** The limits a server's sampling config sets; undefined when sampling is refused altogether. */
export function samplingPolicy(config: McpSamplingConfig | undefined): SamplingPolicy | undefined {
  if (config === false) return undefined;
  const given = typeof config === 'object' ? config : {};
  return {
    maxTokens: given.maxTokens ?? DEFAULT_SAMPLING.maxTokens,
    maxRequests: given.maxRequests ?? DEFAULT_SAMPLING.maxRequests,
  };
}

/**
 * Answers a server's `sampling/createMessage` with the model of the call it belongs to
 * (`tc.sample`: in a run, the run's model, its tokens counted in the run's usage). Over budget,
 * too long, or asking for what HubOS does not offer (tools): an MCP error saying why.
 */
export async function answerSampling(
  params: CreateMessageRequestParams,
  call: CallInFlight,
  policy: SamplingPolicy,
  server: string,
): Promise<CreateMessageResult> {
  if (params.tools?.length || params.toolChoice)
    throw new McpError(
      ErrorCode.InvalidParams,
      'HubOS does not offer sampling with tools (it declares no sampling.tools)',
    );
  if (call.samples >= policy.maxRequests)
    throw new McpError(
      REFUSED,
      `sampling refused: the tool call "${call.tool}" already made ${call.samples} sampling request(s), its budget (mcp.servers.${server}.sampling.maxRequests)`,
    );
  call.samples++;
  const messages = params.messages.map((message) => ({
    role: message.role,
    content: messageContent(message.content),
  }));
  const size = messages.reduce((sum, m) => sum + textLength(m.content), params.systemPrompt?.length ?? 0);
  if (size > MAX_SAMPLING_PROMPT_CHARS)
    throw new McpError(
      REFUSED,
      `sampling refused: the request carries ${size} characters of text, more than HubOS sends a model for a server (${MAX_SAMPLING_PROMPT_CHARS})`,
    );
  try {
    const result = await call.tc.sample({
      messages,
      maxTokens: Math.min(params.maxTokens, policy.maxTokens),
      ...(params.systemPrompt ? { system: params.systemPrompt } : {}),
      ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
      ...(params.stopSequences ? { stopSequences: params.stopSequences } : {}),
    });
    return {
      role: 'assistant',
      content: { type: 'text', text: result.text },
      model: result.model,
      ...(result.stopReason ? { stopReason: result.stopReason } : {}),
    };
  } catch (error) {
    if (HubosError.is(error, 'SAMPLING_UNAVAILABLE'))
      throw new McpError(REFUSED, `sampling refused: ${errorMessage(error)}`);
    throw new McpError(ErrorCode.InternalError, `the model could not answer: ${errorMessage(error)}`);
  }
}

type Part = TextContent | ImageContent | AudioContent;

function textLength(content: SampleMessage['content']): number {
  if (typeof content === 'string') return content.length;
  return content.type === 'text' ? content.text.length : 0;
}

/** A message's content as the core takes it: one part, or several in words. */
function messageContent(
  content: SamplingMessageContentBlock | SamplingMessageContentBlock[],
): SampleMessage['content'] {
  const parts = (Array.isArray(content) ? content : [content]).map(toPart);
  if (parts.length === 1) return parts[0]!;
  return contentToText(parts);
}

function toPart(block: SamplingMessageContentBlock): Part {
  if (block.type === 'text' || block.type === 'image' || block.type === 'audio')
    return toContent(block) as Part;
  throw new McpError(
    ErrorCode.InvalidParams,
    `HubOS does not offer sampling with tools: a message carries "${block.type}" content`,
  );
}
