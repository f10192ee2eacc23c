import type { Message } from '../agent/messages.ts';
import type { ToolDefinition } from './model.ts';
import { parseModelRef } from './model.ts';

/**
 * How a model family's tokens are counted: OpenAI's by its own BPE (`o200k_base` for the GPT-4o,
 * 4.1, 5 and o-series models, `cl100k_base` for GPT-4 and 3.5), every other family by an estimate,
 * since their tokenizers are not public (Anthropic's since Claude 3) or not known here.
 */
export type TokenFamily = 'o200k' | 'cl100k' | 'estimate';

/** Counts tokens of one family. */
export interface TokenCounter {
  readonly family: TokenFamily;
  /** True when the count is the model's own tokenizer's; false for an estimate. */
  readonly exact: boolean;
  /** Tokens of a text. */
  text(text: string): number;
  /** Tokens of a request: instructions, tool definitions and messages, with each message's overhead. */
  request(parts: {
    system?: string;
    tools?: readonly ToolDefinition[];
    messages: readonly Message[];
  }): number;
}

/**
 * Characters per token of the estimate: 3.5 errs high for English prose and code (about 4 for
 * OpenAI's and 3.5 for Anthropic's tokenizers), so a window is never believed roomier than it is.
 */
export const CHARS_PER_TOKEN = 3.5;
/** The framing a chat format adds per message (role, separators), as OpenAI documents it. */
export const MESSAGE_OVERHEAD = 4;

/** The family of `provider:model`: OpenAI's models (and OpenAI-compatible ones named so) have a tokenizer. */
export function tokenFamily(modelRef: string): TokenFamily {
  const { provider, modelId } = parseModelRef(modelRef);
  const id = (modelId || provider).toLowerCase();
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o\d|chatgpt-4o|codex)/.test(id)) return 'o200k';
  if (/^(gpt-4|gpt-3\.5)/.test(id)) return 'cl100k';
  return 'estimate';
}

/** The estimate: characters over 3.5, rounded up. Cheap (a length), so it is the first check. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

type Encoder = (text: string) => number;
const loaded = new Map<TokenFamily, Promise<Encoder>>();

/**
 * The counter for `modelRef`'s family. OpenAI's tokenizers load at the first call for their family
 * (about 150 ms and 100 MB once per process, from `gpt-tokenizer`); the estimate loads nothing.
 */
export async function tokenCounter(modelRef: string): Promise<TokenCounter> {
  const family = tokenFamily(modelRef);
  if (family === 'estimate') return counterOf(family, estimateTokens, false);
  let encoder = loaded.get(family);
  if (!encoder) {
    encoder = loadEncoder(family);
    loaded.set(family, encoder);
    // A failed load (the package missing from a trimmed install) is tried again next time.
    encoder.catch(() => loaded.delete(family));
  }
  return counterOf(family, await encoder, true);
}

/** The estimate's counter, for callers that cannot wait for a tokenizer. */
export const ESTIMATE_COUNTER: TokenCounter = counterOf('estimate', estimateTokens, false);

async function loadEncoder(family: 'o200k' | 'cl100k'): Promise<Encoder> {
  const encoding =
    family === 'o200k'
      ? await import('gpt-tokenizer/encoding/o200k_base')
      : await import('gpt-tokenizer/encoding/cl100k_base');
  return (text) => encoding.countTokens(text);
}

function counterOf(family: TokenFamily, count: Encoder, exact: boolean): TokenCounter {
  return {
    family,
    exact,
    text: (text) => (text === '' ? 0 : count(text)),
    request({ system, tools, messages }) {
      let total = system ? count(system) + MESSAGE_OVERHEAD : 0;
      if (tools?.length) total += count(JSON.stringify(tools));
      for (const message of messages) total += messageTokens(message, count);
      return total;
    },
  };
}

function messageTokens(message: Message, count: Encoder): number {
  let total = MESSAGE_OVERHEAD + (message.content ? count(message.content) : 0);
  if (message.role === 'assistant' && message.toolCalls)
    for (const call of message.toolCalls) total += count(call.name) + count(JSON.stringify(call.input ?? {}));
  return total;
}
