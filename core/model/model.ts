import type { Message, ToolCall, Usage } from '../agent/messages.ts';
import type { JSONSchemaObject } from '../json-schema.ts';
import { fromAiSdk, isAiSdkModel } from './ai-sdk.ts';
import type { AiSdkLanguageModel } from './ai-sdk-types.ts';
import type { ModelRetry } from './retry-policy.ts';

/** A tool as a model sees it. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JSONSchemaObject;
}

export interface ModelRequest {
  /** The agent's instructions (the system prompt). */
  system?: string;
  messages: Message[];
  tools: ToolDefinition[];
  signal: AbortSignal;
  maxTokens?: number;
  temperature?: number;
  /**
   * `false` when nobody reads the answer as it comes (a run answered as one JSON body): a provider
   * may then ask its API for the whole answer at once, which costs less. The chunks are the same;
   * the text comes in one delta.
   */
  stream?: boolean;
  /**
   * Told of each retry a provider makes on its own (after a 429, a 5xx, a refused connection) and
   * of each retry or failover of a fallback chain: the run turns them into `model-retry` events.
   */
  onRetry?: (retry: ModelRetry) => void;
}

/** Why the model stopped: `tool-calls` means the loop runs the calls and asks again. */
export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'other';

/**
 * What a model streams. Providers accumulate tool-call arguments themselves and emit each call
 * whole (`tool-call`) once it is complete; `tool-call-start` / `tool-call-delta` are for live display.
 */
export type ModelChunk =
  | { type: 'text-delta'; delta: string }
  | { type: 'tool-call-start'; id: string; name: string }
  | { type: 'tool-call-delta'; id: string; delta: string }
  | ({ type: 'tool-call' } & ToolCall)
  | { type: 'finish'; finishReason: FinishReason; usage?: Partial<Usage> };

/** One model of one provider, ready to be called. */
export interface LanguageModel {
  /** Provider id, e.g. `openai`. */
  readonly provider: string;
  /** Model id, e.g. `gpt-4.1-mini`. */
  readonly modelId: string;
  stream(request: ModelRequest): AsyncIterable<ModelChunk>;
}

/**
 * Splits `'openai:gpt-4.1-mini'` into provider and model; a bare `'offline'` has no model id.
 * @internal
 */
export function parseModelRef(ref: string): { provider: string; modelId: string } {
  const at = ref.indexOf(':');
  return at === -1
    ? { provider: ref, modelId: '' }
    : { provider: ref.slice(0, at), modelId: ref.slice(at + 1) };
}

/** `provider:model`, as configs, runs and events name a model; a bare provider (`offline`) alone. */
export function modelRefOf(model: LanguageModel): string {
  return model.modelId ? `${model.provider}:${model.modelId}` : model.provider;
}

export function isLanguageModel(value: unknown): value is LanguageModel {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as LanguageModel).stream === 'function' &&
    typeof (value as LanguageModel).provider === 'string'
  );
}

/** A model given as an object: a HubOS `LanguageModel`, or an AI SDK language model (wrapped when used). */
export type ModelObject = LanguageModel | AiSdkLanguageModel;

/** What config names a model with: a reference or a model object, or a fallback chain of them (tried in order). */
export type ModelSetting = string | ModelObject | readonly (string | ModelObject)[];

/** True for a HubOS `LanguageModel` or an AI SDK language model. */
export function isModelObject(value: unknown): value is ModelObject {
  return isLanguageModel(value) || isAiSdkModel(value);
}

/** The HubOS model of a model object: a `LanguageModel` as it is, an AI SDK model through `fromAiSdk`. */
export function toLanguageModel(model: ModelObject): LanguageModel {
  return isLanguageModel(model) ? model : fromAiSdk(model);
}
