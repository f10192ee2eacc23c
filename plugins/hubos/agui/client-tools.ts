import { type Message as AguiMessage, type Tool as AguiTool, contentToText } from '@ag-ui/core';
import type { Agent, JSONSchemaObject, Message, ToolDefinition } from '../../../core/index.ts';
import { HUBOS_ERROR_CODES } from '../errors.ts';

export type ToolResultMessage = Extract<Message, { role: 'tool' }>;

// What OpenAI and Anthropic both accept as a function name.
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const NO_PARAMETERS: JSONSchemaObject = { type: 'object', properties: {} };

/** The client's tools as the model will see them; 400 on a bad name or one the agent already has. */
export function toClientTools(tools: readonly AguiTool[], agent: Agent): ToolDefinition[] {
  const own = new Set(agent.tools.map((tool) => tool.name));
  const seen = new Set<string>();
  return tools.map((tool) => {
    const { name, description, parameters } = tool;
    if (!TOOL_NAME.test(name))
      throw HUBOS_ERROR_CODES.create(
        'INVALID_BODY',
        `client tool "${name}": a name is 1-64 of [A-Za-z0-9_-]`,
      );
    // A client tool must not shadow a server tool: the loop could not tell whose call it is.
    if (own.has(name))
      throw HUBOS_ERROR_CODES.create(
        'TOOL_CONFLICT',
        `client tool "${name}": agent "${agent.id}" has its own`,
      );
    if (seen.has(name))
      throw HUBOS_ERROR_CODES.create('INVALID_BODY', `client tool "${name}" is listed twice`);
    seen.add(name);
    if (parameters !== undefined && (typeof parameters !== 'object' || parameters === null))
      throw HUBOS_ERROR_CODES.create(
        'INVALID_BODY',
        `client tool "${name}": parameters must be a JSON Schema object`,
      );
    return { name, description, inputSchema: (parameters as JSONSchemaObject | undefined) ?? NO_PARAMETERS };
  });
}

/** Tool messages as HubOS tool results; the tool's name comes from the call in the client's history. */
export function toToolResults(
  messages: readonly AguiMessage[],
  answers: readonly Extract<AguiMessage, { role: 'tool' }>[],
): ToolResultMessage[] {
  const names = new Map<string, string>();
  for (const message of messages)
    if (message.role === 'assistant')
      for (const call of message.toolCalls ?? []) names.set(call.id, call.function.name);
  return answers.map((answer) => {
    const text = contentToText(answer.content);
    return {
      role: 'tool',
      toolCallId: answer.toolCallId,
      name: names.get(answer.toolCallId) ?? 'unknown',
      content: answer.error ? `Error: ${answer.error}${text ? `\n${text}` : ''}` : text,
      ...(answer.error ? { isError: true } : {}),
    };
  });
}
