import type { ArgumentCompleter } from '../resources/resource.ts';
import type { Store } from '../store/store.ts';
import type {
  AudioContent,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
  TextContent,
} from '../tools/content.ts';

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;
}

export interface PromptResult {
  description?: string;
  messages: PromptMessage[];
}

/** What a prompt is rendered with. */
export interface PromptContext {
  store: Store;
  principal?: string;
  signal: AbortSignal;
}

/** A reusable prompt a user picks (MCP `prompts/get`): messages made from its arguments. */
export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  /**
   * `<domain>:<action>` permissions getting it needs (a prompt that reads data), decided by the
   * permission policy as for tools: denied prompts are not listed, `ask` asks the client's user.
   */
  permissions?: readonly string[];
  /** The messages, from the arguments the user gave (required ones are checked before). */
  get(args: Record<string, string>, ctx: PromptContext): PromptResult | Promise<PromptResult>;
  /** Completions for its arguments, by name. */
  complete?: Record<string, ArgumentCompleter>;
}
