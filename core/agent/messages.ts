import type { ToolContent } from '../tools/content.ts';

/** A tool call the model asked for. `input` is the parsed JSON arguments (or the raw text if they were not JSON). */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

/**
 * The provider-neutral conversation: what sessions store and providers translate. A tool message's
 * `content` is always its text (rich parts in words); `parts` keeps a rich result's parts for the
 * providers that take images or audio in a tool result.
 */
export type Message =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | {
      role: 'tool';
      toolCallId: string;
      name: string;
      content: string;
      isError?: boolean;
      parts?: ToolContent[];
    };

/** Tokens a model call (or a whole run) took in and gave out. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * No tokens yet.
 * @internal
 */
export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0 });

/**
 * `total` plus `more` (missing counts are 0).
 * @internal
 */
export function addUsage(total: Usage, more: Partial<Usage> | undefined): Usage {
  return {
    inputTokens: total.inputTokens + (more?.inputTokens ?? 0),
    outputTokens: total.outputTokens + (more?.outputTokens ?? 0),
  };
}
