import type { FinishReason } from '../model/model.ts';
import type { Message } from './messages.ts';

/**
 * Messages as the GenAI semantic conventions put them on a span (`gen_ai.input.messages`,
 * `gen_ai.output.messages`): JSON of `{ role, parts }`, each part text, a tool call or its response.
 * Made only when `telemetry.includeContent` is on.
 */
type Part =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: string };

function partsOf(message: Message): Part[] {
  if (message.role === 'tool')
    return [{ type: 'tool_call_response', id: message.toolCallId, response: message.content }];
  const parts: Part[] = message.content ? [{ type: 'text', content: message.content }] : [];
  if (message.role === 'assistant')
    for (const call of message.toolCalls ?? [])
      parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.input });
  return parts;
}

export function inputMessages(messages: readonly Message[]): string {
  return JSON.stringify(messages.map((message) => ({ role: message.role, parts: partsOf(message) })));
}

export function outputMessages(message: Message, finishReason: FinishReason): string {
  return JSON.stringify([{ role: message.role, parts: partsOf(message), finish_reason: finishReason }]);
}

/** The system instructions, as the conventions' list of parts. */
export function textParts(text: string): string {
  return JSON.stringify([{ type: 'text', content: text }]);
}

/** A tool's arguments or result: JSON, or the text itself. */
export function contentJson(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
