import type { Message } from '../agent/messages.ts';
import { contentToText, type ImageContent, type ToolContent } from '../tools/content.ts';
import type { AiSdkCallOptions } from './ai-sdk-types.ts';
import type { ModelRequest } from './model.ts';

type ToolMessage = Extract<Message, { role: 'tool' }>;

/**
 * A HubOS request as AI SDK call options (spec `version` 2, 3 or 4): the system prompt and the
 * conversation as the spec's prompt, tools as function tools, and the run's abort signal.
 * @internal
 */
export function toCallOptions(request: ModelRequest, version: number, toolImages: boolean): AiSdkCallOptions {
  return {
    prompt: toPrompt(request, version, toolImages),
    ...(request.tools.length > 0 && {
      tools: request.tools.map((tool) => ({
        type: 'function' as const,
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
      })),
    }),
    ...(request.maxTokens !== undefined && { maxOutputTokens: request.maxTokens }),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    abortSignal: request.signal,
  };
}

function toPrompt(request: ModelRequest, version: number, toolImages: boolean): unknown[] {
  const prompt: unknown[] = request.system ? [{ role: 'system', content: request.system }] : [];
  let results: unknown[] | undefined;
  for (const message of request.messages) {
    if (message.role === 'tool') {
      // The results of one turn's calls travel together in one tool message, as the AI SDK sends them.
      if (!results) {
        results = [];
        prompt.push({ role: 'tool', content: results });
      }
      results.push(toolResult(message, version, toolImages));
      continue;
    }
    results = undefined;
    if (message.role === 'user')
      prompt.push({ role: 'user', content: [{ type: 'text', text: message.content }] });
    else
      prompt.push({
        role: 'assistant',
        content: [
          ...(message.content ? [{ type: 'text', text: message.content }] : []),
          ...(message.toolCalls ?? []).map((call) => ({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.name,
            input: call.input,
          })),
        ],
      });
  }
  return prompt;
}

function toolResult(message: ToolMessage, version: number, toolImages: boolean) {
  return {
    type: 'tool-result',
    toolCallId: message.toolCallId,
    toolName: message.name,
    output: toolOutput(message, version, toolImages),
  };
}

function toolOutput(message: ToolMessage, version: number, toolImages: boolean) {
  if (message.isError) return { type: 'error-text', value: message.content };
  const parts = message.parts ?? [];
  if (!toolImages || !parts.some(isImage)) return { type: 'text', value: message.content };
  return {
    type: 'content',
    value: parts.map((part) =>
      isImage(part) ? imagePart(part, version) : { type: 'text', text: contentToText([part]) },
    ),
  };
}

const isImage = (part: ToolContent): part is ImageContent => part.type === 'image';

/** Each spec names an image in a tool result its own way. */
function imagePart(image: ImageContent, version: number) {
  if (version <= 2) return { type: 'media', data: image.data, mediaType: image.mimeType };
  if (version === 3) return { type: 'image-data', data: image.data, mediaType: image.mimeType };
  return { type: 'file', data: { type: 'data', data: image.data }, mediaType: image.mimeType };
}
