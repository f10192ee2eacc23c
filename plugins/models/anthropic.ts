import {
  contentToText,
  type FinishReason,
  HubosError,
  type LanguageModel,
  type Message,
  type ModelChunk,
  type ModelProvider,
  type ModelRequest,
  type Plugin,
  type Usage,
} from '../../core/index.ts';
import { fromEnv, HTTP_OPTIONS_PROPERTIES, HttpClient, providerError } from './http.ts';
import { providerPlugin } from './provider-plugin.ts';
import { parseEventJSON, parseToolInput, readSSE, type SSEEvent } from './sse.ts';

/** Anthropic's Messages API (Claude). */
export interface AnthropicOptions {
  /** Defaults to ANTHROPIC_API_KEY; only api.anthropic.com requires one. */
  apiKey?: string;
  /** Defaults to ANTHROPIC_BASE_URL, then https://api.anthropic.com (without /v1, as the official SDK). */
  baseURL?: string;
  /** `max_tokens` when the request names none: the API requires one. Default 4096. */
  maxTokens?: number;
  timeoutMs?: number;
  maxRetries?: number;
  retryBaseMs?: number;
  headers?: Record<string, string>;
  /** Stream the answer (default true); false asks for one JSON message. */
  stream?: boolean;
}

/** Pinned so an API change never alters the wire format under us; bump it deliberately. */
export const ANTHROPIC_VERSION = '2023-06-01';
const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
const PROVIDER = 'anthropic';
const AUTH_HINT = 'set ANTHROPIC_API_KEY or the config key anthropic.apiKey';

const ANTHROPIC_CONFIG_SCHEMA = {
  type: 'object',
  description: 'Anthropic (Claude): the `anthropic:<model>` provider.',
  properties: {
    apiKey: { type: 'string', description: 'API key; defaults to ANTHROPIC_API_KEY.' },
    baseURL: {
      type: 'string',
      description: 'API base URL without /v1; defaults to ANTHROPIC_BASE_URL, then the Anthropic API.',
    },
    maxTokens: {
      type: 'integer',
      minimum: 1,
      description: 'max_tokens when a request names none (the API requires it). Default 4096.',
    },
    ...HTTP_OPTIONS_PROPERTIES,
  },
  additionalProperties: false,
} as const;

// Types `anthropic` in agent.config.ts / createKernel({ config }), as a third-party plugin types its keys.
declare module 'hubos' {
  interface HubosConfig {
    anthropic?: AnthropicOptions;
  }
}

/** The `anthropic` plugin: registers the `anthropic` model provider (`'anthropic:claude-sonnet-4-5'`). */
export default function anthropic(options: AnthropicOptions = {}): Plugin {
  return providerPlugin('anthropic', ANTHROPIC_CONFIG_SCHEMA, options, createAnthropicProvider);
}

interface Settings {
  apiKey: string | undefined;
  baseURL: string;
  maxTokens: number;
  headers: Record<string, string>;
  stream: boolean;
}

/** The provider alone, for use without a kernel. Options fall back to the environment, then defaults. */
export function createAnthropicProvider(options: AnthropicOptions = {}): ModelProvider {
  const settings: Settings = {
    apiKey: options.apiKey ?? fromEnv('ANTHROPIC_API_KEY'),
    baseURL: checkURL(options.baseURL ?? fromEnv('ANTHROPIC_BASE_URL') ?? ANTHROPIC_DEFAULT_BASE_URL),
    maxTokens: options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    headers: options.headers ?? {},
    stream: options.stream ?? true,
  };
  const http = new HttpClient({ ...options, provider: PROVIDER, authHint: AUTH_HINT });
  return {
    id: PROVIDER,
    description: `Anthropic Messages API at ${settings.baseURL}`,
    languageModel(modelId: string): LanguageModel {
      if (!modelId) {
        throw new HubosError(
          'MODEL_CONFIG',
          `name an Anthropic model after the colon, e.g. "anthropic:claude-sonnet-4-5"`,
          { details: { provider: PROVIDER } },
        );
      }
      return {
        provider: PROVIDER,
        modelId,
        stream: (request) => streamMessages(http, settings, modelId, request),
      };
    },
    close: () => http.close(),
  };
}

async function* streamMessages(
  http: HttpClient,
  settings: Settings,
  modelId: string,
  request: ModelRequest,
): AsyncGenerator<ModelChunk> {
  // A proxy or gateway may hold the key itself; only the real API is known to need one.
  if (!settings.apiKey && new URL(settings.baseURL).hostname === 'api.anthropic.com') {
    throw new HubosError('MODEL_CONFIG', `no Anthropic API key: ${AUTH_HINT}`, {
      details: { provider: PROVIDER },
    });
  }
  const headers: Record<string, string> = {
    accept: settings.stream ? 'text/event-stream' : 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
    ...(settings.apiKey ? { 'x-api-key': settings.apiKey } : {}),
    ...settings.headers,
  };
  const body = messagesBody(modelId, request, settings);
  const response = await http.post(`${settings.baseURL}/v1/messages`, body, {
    headers,
    signal: request.signal,
    onRetry: request.onRetry,
  });
  if (settings.stream) yield* messageStream(readSSE(response.chunks(), PROVIDER));
  else yield* messageReply(await response.json());
}

/** The Messages API request body. */
function messagesBody(
  modelId: string,
  request: ModelRequest,
  settings: Pick<Settings, 'maxTokens' | 'stream'>,
): Record<string, unknown> {
  const messages = anthropicMessages(request.messages);
  const tools = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));
  // Prompt caching: breakpoints after the stable prefix (tools, then the instructions) and after
  // the conversation so far, so the next call reads all of it from the cache. Four at most.
  const lastTool = tools.at(-1);
  if (lastTool) Object.assign(lastTool, { cache_control: EPHEMERAL });
  const lastBlock = messages.at(-1)?.content.at(-1);
  if (lastBlock) Object.assign(lastBlock, { cache_control: EPHEMERAL });
  return {
    model: modelId,
    max_tokens: request.maxTokens ?? settings.maxTokens,
    ...(request.system && {
      system: [{ type: 'text', text: request.system, cache_control: EPHEMERAL }],
    }),
    messages,
    ...(tools.length > 0 && { tools }),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    stream: settings.stream,
  };
}

/** Anthropic's cache breakpoint: the prompt up to here is cached for 5 minutes. */
const EPHEMERAL = { type: 'ephemeral' } as const;

type TextBlock = { type: 'text'; text: string };
type ImageBlock = { type: 'image'; source: { type: 'base64'; media_type: string; data: string } };

type Block =
  | TextBlock
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content: string | (TextBlock | ImageBlock)[];
      is_error: boolean;
    };

/** The image types the Messages API reads; others reach the model as their text stand-in. */
const ANTHROPIC_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * Neutral messages to Anthropic's: tool results travel in user messages, and roles must alternate,
 * so adjacent messages of one role (several tool results, a result then user text) become one.
 */
function anthropicMessages(messages: readonly Message[]): { role: 'user' | 'assistant'; content: Block[] }[] {
  const out: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message);
    if (blocks.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  return out;
}

function toBlocks(message: Message): Block[] {
  if (message.role === 'tool') {
    const result = {
      tool_use_id: message.toolCallId,
      content: toolResultContent(message),
      is_error: message.isError === true,
    };
    return [{ type: 'tool_result', ...result }];
  }
  // The API rejects empty text blocks.
  const blocks: Block[] = message.content ? [{ type: 'text', text: message.content }] : [];
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) {
      // tool_use input must be an object; raw (unparseable) arguments are wrapped, not lost.
      const input = isObject(call.input) ? call.input : { input: call.input };
      blocks.push({ type: 'tool_use', id: call.id, name: call.name, input });
    }
  }
  return blocks;
}

/**
 * A tool result's content: its text, or — when its parts hold an image the API reads — the parts
 * as blocks: images as base64 image blocks, everything else (audio, resources) in words.
 */
function toolResultContent(message: Extract<Message, { role: 'tool' }>): string | (TextBlock | ImageBlock)[] {
  const parts = message.parts;
  if (!parts?.some((part) => part.type === 'image' && ANTHROPIC_IMAGE_TYPES.has(part.mimeType)))
    return message.content;
  const blocks: (TextBlock | ImageBlock)[] = [];
  for (const part of parts) {
    if (part.type === 'image' && ANTHROPIC_IMAGE_TYPES.has(part.mimeType)) {
      blocks.push({ type: 'image', source: { type: 'base64', media_type: part.mimeType, data: part.data } });
      continue;
    }
    const text = contentToText([part]);
    // The API rejects empty text blocks.
    if (text) blocks.push({ type: 'text', text });
  }
  return blocks;
}

interface WireUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

interface WireBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

interface StreamEvent {
  type?: string;
  index?: number;
  message?: { usage?: WireUsage };
  content_block?: WireBlock;
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: WireUsage;
  error?: unknown;
}

/** Turns Messages API stream events into model chunks. */
async function* messageStream(events: AsyncIterable<SSEEvent>): AsyncGenerator<ModelChunk> {
  const toolBlocks = new Map<number, { id: string; name: string; json: string }>();
  const usage: Partial<Usage> = {};
  let stopReason: string | undefined;
  let hasCalls = false;
  let stopped = false;
  for await (const { event, data } of events) {
    // Keep reading to the end after message_stop so the socket goes back to the keep-alive pool.
    if (stopped || event === 'ping') continue;
    const payload = parseEventJSON(data, PROVIDER) as StreamEvent;
    const type = payload.type ?? event;
    if (type === 'error') throw providerError(PROVIDER, payload.error);
    if (type === 'message_start') {
      if (payload.message?.usage) Object.assign(usage, toUsage(payload.message.usage));
    } else if (type === 'content_block_start') {
      const block = payload.content_block;
      if (block?.type === 'text' && block.text) yield { type: 'text-delta', delta: block.text };
      if (block?.type === 'tool_use' && block.id && block.name) {
        toolBlocks.set(payload.index ?? 0, { id: block.id, name: block.name, json: '' });
        yield { type: 'tool-call-start', id: block.id, name: block.name };
      }
    } else if (type === 'content_block_delta') {
      const delta = payload.delta;
      if (delta?.type === 'text_delta' && delta.text) yield { type: 'text-delta', delta: delta.text };
      const block = toolBlocks.get(payload.index ?? 0);
      if (delta?.type === 'input_json_delta' && block && delta.partial_json) {
        block.json += delta.partial_json;
        yield { type: 'tool-call-delta', id: block.id, delta: delta.partial_json };
      }
    } else if (type === 'content_block_stop') {
      const block = toolBlocks.get(payload.index ?? 0);
      if (block) {
        toolBlocks.delete(payload.index ?? 0);
        hasCalls = true;
        yield { type: 'tool-call', id: block.id, name: block.name, input: parseToolInput(block.json) };
      }
    } else if (type === 'message_delta') {
      if (payload.delta?.stop_reason) stopReason = payload.delta.stop_reason;
      if (payload.usage) Object.assign(usage, toUsage(payload.usage));
    } else if (type === 'message_stop') {
      stopped = true;
    }
  }
  if (!stopped) {
    throw new HubosError('MODEL_RESPONSE_INVALID', `${PROVIDER} stream ended before message_stop`, {
      details: { provider: PROVIDER },
    });
  }
  yield { type: 'finish', finishReason: toFinishReason(stopReason, hasCalls), usage };
}

/** Turns a non-streamed message into the same chunks a stream would give. */
function* messageReply(json: unknown): Generator<ModelChunk> {
  const body = (json ?? {}) as {
    type?: string;
    error?: unknown;
    content?: WireBlock[];
    stop_reason?: string;
    usage?: WireUsage;
  };
  if (body.type === 'error' || body.error) throw providerError(PROVIDER, body.error);
  if (!Array.isArray(body.content)) {
    throw new HubosError('MODEL_RESPONSE_INVALID', `${PROVIDER} answered with no content`, {
      details: { provider: PROVIDER },
    });
  }
  let hasCalls = false;
  for (const block of body.content) {
    if (block.type === 'text' && block.text) yield { type: 'text-delta', delta: block.text };
    if (block.type === 'tool_use' && block.id && block.name) {
      hasCalls = true;
      yield { type: 'tool-call-start', id: block.id, name: block.name };
      yield { type: 'tool-call', id: block.id, name: block.name, input: block.input ?? {} };
    }
  }
  const usage = body.usage ? toUsage(body.usage) : undefined;
  yield { type: 'finish', finishReason: toFinishReason(body.stop_reason, hasCalls), ...(usage && { usage }) };
}

function toFinishReason(reason: string | undefined, hasCalls: boolean): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return hasCalls ? 'tool-calls' : 'other';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

// Anthropic counts cached prompt tokens apart; the neutral inputTokens is the whole prompt.
function toUsage(usage: WireUsage): Partial<Usage> {
  const out: Partial<Usage> = {};
  if (typeof usage.input_tokens === 'number') {
    out.inputTokens =
      usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
  }
  if (typeof usage.output_tokens === 'number') out.outputTokens = usage.output_tokens;
  // The part read from the cache (cache writes are counted as plain input).
  if (typeof usage.cache_read_input_tokens === 'number')
    out.cachedInputTokens = usage.cache_read_input_tokens;
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkURL(url: string): string {
  try {
    new URL(url);
  } catch {
    throw new HubosError('MODEL_CONFIG', `anthropic.baseURL is not a URL: "${url}"`, {
      details: { provider: PROVIDER },
    });
  }
  return url.replace(/\/+$/, '');
}
