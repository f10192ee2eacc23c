import { randomUUID } from 'node:crypto';
import { type Message, type Part, Role } from '@a2a-js/sdk';

/** A text part, as the SDK's internal (proto) types spell it. */
export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

/** A structured part (tool calls and results travel this way). */
export function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

/** `value` as it is when its JSON fits in `max` characters, else the start of that JSON, marked as cut. */
export function capJson(value: unknown, max: number): unknown {
  const json = JSON.stringify(value) ?? 'null';
  return json.length <= max ? value : `${json.slice(0, max)}… (truncated)`;
}

/** A message from the agent, tied to its task. */
export function agentMessage(
  taskId: string,
  contextId: string,
  parts: Part[],
  metadata?: Record<string, unknown>,
): Message {
  return {
    messageId: randomUUID(),
    taskId,
    contextId,
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * The agent's input from a user message. HubOS agents take text, so structured parts are given as
 * JSON and files by name: the model then knows something was sent that it cannot open.
 */
export function inputText(message: Message): string {
  const pieces: string[] = [];
  for (const part of message.parts) {
    const content = part.content;
    if (!content) continue;
    if (content.$case === 'text') pieces.push(content.value);
    else if (content.$case === 'data') pieces.push(JSON.stringify(content.value));
    else {
      const name = part.filename || (content.$case === 'url' ? content.value : 'unnamed');
      pieces.push(`[attached file: ${name}${part.mediaType ? ` (${part.mediaType})` : ''}]`);
    }
  }
  return pieces.join('\n\n');
}
