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
  /** The whole prompt, cached part included. */
  inputTokens: number;
  outputTokens: number;
  /** The part of `inputTokens` the provider read from its prompt cache, when it says (priced lower). */
  cachedInputTokens?: number;
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
  const sum: Usage = {
    inputTokens: total.inputTokens + (more?.inputTokens ?? 0),
    outputTokens: total.outputTokens + (more?.outputTokens ?? 0),
  };
  // Stays absent until some call reports it, so providers that never do keep their usage as it was.
  if (total.cachedInputTokens !== undefined || more?.cachedInputTokens !== undefined)
    sum.cachedInputTokens = (total.cachedInputTokens ?? 0) + (more?.cachedInputTokens ?? 0);
  return sum;
}
