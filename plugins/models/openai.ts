import {
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

/** OpenAI, or any server that speaks its Chat Completions API (Ollama, vLLM, LM Studio, ...). */
export interface OpenAIOptions {
  /** Defaults to OPENAI_API_KEY; only api.openai.com requires one. */
  apiKey?: string;
  /** Defaults to OPENAI_BASE_URL, then https://api.openai.com/v1. */
  baseURL?: string;
  /** Sent as OpenAI-Organization; defaults to OPENAI_ORG_ID. */
  organization?: string;
  timeoutMs?: number;
  maxRetries?: number;
  retryBaseMs?: number;
  headers?: Record<string, string>;
  /** Stream the answer (default true); false asks for one JSON completion. */
  stream?: boolean;
  /**
   * Show the model the images tool results return. A tool message carries text only, so they
   * follow the results in a user message, as `image_url` data URLs: set it only for a model that
   * takes image input (a text-only one refuses the request). Default false: the model reads each
   * result's text stand-in (`[image image/png, N bytes]`).
   */
  toolImages?: boolean;
}

const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
const PROVIDER = 'openai';
const AUTH_HINT = 'set OPENAI_API_KEY or the config key openai.apiKey';

const OPENAI_CONFIG_SCHEMA = {
  type: 'object',
  description: 'OpenAI and OpenAI-compatible servers: the `openai:<model>` provider.',
  properties: {
    apiKey: { type: 'string', description: 'API key; defaults to OPENAI_API_KEY.' },
    baseURL: {
      type: 'string',
      description: 'API base URL; defaults to OPENAI_BASE_URL, then the OpenAI API.',
    },
    organization: { type: 'string', description: 'OpenAI organization id; defaults to OPENAI_ORG_ID.' },
    toolImages: {
      type: 'boolean',
      description:
        'Send images from tool results to the model (in a user message after the results); only for models that take image input. Default false.',
    },
    ...HTTP_OPTIONS_PROPERTIES,
  },
  additionalProperties: false,
} as const;

// Types `openai` in agent.config.ts / createKernel({ config }), as a third-party plugin types its keys.
declare module 'hubos' {
  interface HubosConfig {
    openai?: OpenAIOptions;
  }
}

/** The `openai` plugin: registers the `openai` model provider (`'openai:gpt-4.1-mini'`). */
export default function openai(options: OpenAIOptions = {}): Plugin {
  return providerPlugin('openai', OPENAI_CONFIG_SCHEMA, options, createOpenAIProvider);
}

interface Settings {
  apiKey: string | undefined;
  baseURL: string;
  organization: string | undefined;
  headers: Record<string, string>;
  stream: boolean;
  toolImages: boolean;
}

/** The provider alone, for use without a kernel. Options fall back to the environment, then defaults. */
export function createOpenAIProvider(options: OpenAIOptions = {}): ModelProvider {
  const settings: Settings = {
    apiKey: options.apiKey ?? fromEnv('OPENAI_API_KEY'),
    baseURL: checkURL(options.baseURL ?? fromEnv('OPENAI_BASE_URL') ?? OPENAI_DEFAULT_BASE_URL),
    organization: options.organization ?? fromEnv('OPENAI_ORG_ID'),
    headers: options.headers ?? {},
    stream: options.stream ?? true,
    toolImages: options.toolImages ?? false,
  };
  const http = new HttpClient({ ...options, provider: PROVIDER, authHint: AUTH_HINT });
  return {
    id: PROVIDER,
    description: `OpenAI Chat Completions at ${settings.baseURL}`,
    languageModel(modelId: string): LanguageModel {
      if (!modelId) {
        throw new HubosError(
          'MODEL_CONFIG',
          `name an OpenAI model after the colon, e.g. "openai:gpt-4.1-mini"`,
          {
            details: { provider: PROVIDER },
          },
        );
      }
      return {
        provider: PROVIDER,
        modelId,
        stream: (request) => streamChat(http, settings, modelId, request),
      };
    },
    close: () => http.close(),
  };
}

async function* streamChat(
  http: HttpClient,
  settings: Settings,
  modelId: string,
  request: ModelRequest,
): AsyncGenerator<ModelChunk> {
  // Compatible servers (Ollama, vLLM) need no key; only the real OpenAI API does.
  if (!settings.apiKey && new URL(settings.baseURL).hostname === 'api.openai.com') {
    throw new HubosError('MODEL_CONFIG', `no OpenAI API key: ${AUTH_HINT}`, {
      details: { provider: PROVIDER },
    });
  }
  // Streamed unless turned off, or unless nobody reads the answer as it comes (the request says so).
  const stream = settings.stream && request.stream !== false;
  const headers: Record<string, string> = {
    accept: stream ? 'text/event-stream' : 'application/json',
    ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
    ...(settings.organization ? { 'openai-organization': settings.organization } : {}),
    ...settings.headers,
  };
  const body = chatBody(modelId, request, { ...settings, stream });
  const response = await http.post(`${settings.baseURL}/chat/completions`, body, {
    headers,
    signal: request.signal,
    onRetry: request.onRetry,
  });
  if (stream) yield* chatStream(readSSE(response.chunks(), PROVIDER));
  else yield* completion(await response.json());
}

/** The Chat Completions request body. */
function chatBody(
  modelId: string,
  request: ModelRequest,
  { stream, toolImages }: Pick<Settings, 'stream' | 'toolImages'>,
): Record<string, unknown> {
  return {
    model: modelId,
    messages: chatMessages(request.system, request.messages, toolImages),
    ...(request.tools.length > 0 && {
      tools: request.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      })),
    }),
    ...(request.maxTokens !== undefined && { max_completion_tokens: request.maxTokens }),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : { stream: false }),
  };
}

/** The image types Chat Completions reads in `image_url`; others stay in the text stand-in. */
const OPENAI_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

function chatMessages(
  system: string | undefined,
  messages: readonly Message[],
  toolImages: boolean,
): unknown[] {
  const out: unknown[] = system ? [{ role: 'system', content: system }] : [];
  // Images of the tool results in a row: they follow the last of them (nothing may come between
  // an assistant's tool calls and their results).
  let images: { name: string; url: string }[] = [];
  const flushImages = () => {
    if (images.length > 0) out.push(imagesMessage(images));
    images = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flushImages();
    if (message.role === 'user') out.push({ role: 'user', content: message.content });
    else if (message.role === 'tool') {
      out.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content });
      if (toolImages)
        for (const part of message.parts ?? [])
          if (part.type === 'image' && OPENAI_IMAGE_TYPES.has(part.mimeType))
            images.push({ name: message.name, url: `data:${part.mimeType};base64,${part.data}` });
    } else {
      const calls = message.toolCalls ?? [];
      out.push({
        role: 'assistant',
        // The API wants null, not '', beside tool calls.
        content: message.content === '' && calls.length > 0 ? null : message.content,
        ...(calls.length > 0 && {
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function',
            function: {
              name: call.name,
              // Unparseable arguments were kept raw: send them back as the model wrote them.
              arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}),
            },
          })),
        }),
      });
    }
  }
  flushImages();
  return out;
}

/** The user message that shows the model the images its tools returned, each named by its tool. */
function imagesMessage(images: { name: string; url: string }[]): unknown {
  const tools = [...new Set(images.map((image) => image.name))].join(', ');
  return {
    role: 'user',
    content: [
      { type: 'text', text: `The images returned by the tool results above (${tools}), in order:` },
      ...images.map((image) => ({ type: 'image_url', image_url: { url: image.url } })),
    ],
  };
}

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface Choice {
  index?: number;
  delta?: { content?: string | null; tool_calls?: ToolCallDelta[] };
  message?: { content?: string | null; tool_calls?: ToolCallDelta[] };
  finish_reason?: string | null;
}

interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
}

interface ChatChunk {
  choices?: Choice[];
  usage?: WireUsage | null;
  error?: unknown;
}

/** Turns Chat Completions stream events into model chunks. */
async function* chatStream(events: AsyncIterable<SSEEvent>): AsyncGenerator<ModelChunk> {
  const calls = new ToolCallAccumulator();
  let finishReason: string | undefined;
  let usage: Partial<Usage> | undefined;
  let done = false;
  for await (const { data } of events) {
    // Keep reading to the end after [DONE] so the socket goes back to the keep-alive pool.
    if (done) continue;
    if (data.trim() === '[DONE]') {
      done = true;
      continue;
    }
    const chunk = parseEventJSON(data, PROVIDER) as ChatChunk;
    if (chunk.error) throw providerError(PROVIDER, chunk.error);
    if (chunk.usage) usage = toUsage(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const content = choice.delta?.content;
      if (content) yield { type: 'text-delta', delta: content };
      for (const delta of choice.delta?.tool_calls ?? []) yield* calls.add(delta);
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  }
  if (!done && finishReason === undefined) {
    throw new HubosError(
      'MODEL_RESPONSE_INVALID',
      `${PROVIDER} stream ended before the answer was complete`,
      {
        details: { provider: PROVIDER },
      },
    );
  }
  yield* calls.finish();
  yield finish(finishReason, calls.size > 0, usage);
}

/** Turns a non-streamed completion into the same chunks a stream would give. */
function* completion(json: unknown): Generator<ModelChunk> {
  const body = (json ?? {}) as ChatChunk;
  if (body.error) throw providerError(PROVIDER, body.error);
  const choice = body.choices?.[0];
  if (!choice?.message) {
    throw new HubosError('MODEL_RESPONSE_INVALID', `${PROVIDER} answered with no choices`, {
      details: { provider: PROVIDER },
    });
  }
  if (choice.message.content) yield { type: 'text-delta', delta: choice.message.content };
  const calls = new ToolCallAccumulator();
  // Whole calls carry no index: their position is their index.
  for (const [i, call] of (choice.message.tool_calls ?? []).entries())
    yield* calls.add({ ...call, index: i });
  yield* calls.finish();
  yield finish(
    choice.finish_reason ?? undefined,
    calls.size > 0,
    body.usage ? toUsage(body.usage) : undefined,
  );
}

function finish(
  reason: string | undefined,
  hasCalls: boolean,
  usage: Partial<Usage> | undefined,
): ModelChunk {
  return { type: 'finish', finishReason: toFinishReason(reason, hasCalls), ...(usage && { usage }) };
}

// Some compatible servers say 'stop' even when they return tool calls: the calls decide.
function toFinishReason(reason: string | undefined, hasCalls: boolean): FinishReason {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return hasCalls ? 'tool-calls' : 'other';
    case 'stop':
    case undefined:
      return hasCalls ? 'tool-calls' : 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    default:
      return hasCalls ? 'tool-calls' : 'other';
  }
}

function toUsage(usage: WireUsage): Partial<Usage> {
  return {
    ...(typeof usage.prompt_tokens === 'number' && { inputTokens: usage.prompt_tokens }),
    ...(typeof usage.completion_tokens === 'number' && { outputTokens: usage.completion_tokens }),
    // Part of prompt_tokens, read from OpenAI's prompt cache.
    ...(typeof usage.prompt_tokens_details?.cached_tokens === 'number' && {
      cachedInputTokens: usage.prompt_tokens_details.cached_tokens,
    }),
  };
}

interface PendingCall {
  /** The server's id; undefined until it sends one. */
  id: string | undefined;
  fallbackId: string;
  name: string;
  args: string;
  started: boolean;
}

/**
 * Assembles streamed tool calls. Deltas are matched by `index`; servers that omit it are matched
 * by `id`, and a delta with neither continues the latest call. A new id on a known index is a new
 * call (some servers number every call 0).
 */
class ToolCallAccumulator {
  readonly #calls: PendingCall[] = [];
  readonly #byIndex = new Map<number, PendingCall>();

  get size(): number {
    return this.#calls.length;
  }

  add(delta: ToolCallDelta): ModelChunk[] {
    const call = this.#find(delta);
    if (delta.id && !call.started) call.id = delta.id;
    if (delta.function?.name && !call.name) call.name = delta.function.name;
    const piece = delta.function?.arguments ?? '';
    call.args += piece;
    const id = call.id ?? call.fallbackId;
    if (call.started) return piece ? [{ type: 'tool-call-delta', id, delta: piece }] : [];
    if (!call.name) return [];
    call.started = true;
    const start: ModelChunk = { type: 'tool-call-start', id, name: call.name };
    return call.args ? [start, { type: 'tool-call-delta', id, delta: call.args }] : [start];
  }

  /** Every call, complete, in the order they began. */
  finish(): ModelChunk[] {
    const out: ModelChunk[] = [];
    for (const call of this.#calls) {
      const id = call.id ?? call.fallbackId;
      if (!call.started) out.push({ type: 'tool-call-start', id, name: call.name });
      out.push({ type: 'tool-call', id, name: call.name, input: parseToolInput(call.args) });
    }
    return out;
  }

  #find(delta: ToolCallDelta): PendingCall {
    if (typeof delta.index === 'number') {
      const known = this.#byIndex.get(delta.index);
      if (known && !(delta.id && known.id && delta.id !== known.id)) return known;
      const call = this.#create();
      this.#byIndex.set(delta.index, call);
      return call;
    }
    if (delta.id) return this.#calls.find((call) => call.id === delta.id) ?? this.#create();
    return this.#calls.at(-1) ?? this.#create();
  }

  #create(): PendingCall {
    const call = {
      id: undefined,
      fallbackId: `call_${this.#calls.length}`,
      name: '',
      args: '',
      started: false,
    };
    this.#calls.push(call);
    return call;
  }
}

function checkURL(url: string): string {
  try {
    new URL(url);
  } catch {
    throw new HubosError('MODEL_CONFIG', `openai.baseURL is not a URL: "${url}"`, {
      details: { provider: PROVIDER },
    });
  }
  return url.replace(/\/+$/, '');
}
