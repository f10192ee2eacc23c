/**
 * The part of an AI SDK language model HubOS calls: `@ai-sdk/provider`'s LanguageModelV2, V3 and
 * V4 all fit. Declared here, structurally, so any provider package works without HubOS depending
 * on the AI SDK.
 */
export interface AiSdkLanguageModel {
  /** `'v2'`, `'v3'`, `'v4'`: the shape of its prompt, usage and finish reason. */
  readonly specificationVersion: string;
  /** e.g. `openai.chat`, `groq.chat`. */
  readonly provider: string;
  readonly modelId: string;
  doStream(options: AiSdkCallOptions): PromiseLike<{ stream: ReadableStream<unknown> }>;
}

/** The call options HubOS passes to `doStream`. */
export interface AiSdkCallOptions {
  prompt: unknown[];
  tools?: unknown[];
  maxOutputTokens?: number;
  temperature?: number;
  abortSignal?: AbortSignal;
}

/** An AI SDK provider (`createGroq()`, `createOpenAICompatible({...})`): what `aiSdkProviders` takes. */
export interface AiSdkProvider {
  languageModel(modelId: string): AiSdkLanguageModel;
}

/** How a wrapped AI SDK model behaves where providers differ. */
export interface AiSdkModelOptions {
  /**
   * Send the images tool results return as image parts of the result. Set it only for a provider
   * that takes images in tool results (e.g. `@ai-sdk/anthropic`, `@ai-sdk/openai`): others turn the
   * parts into JSON text. Default false: the model reads each result's text stand-in.
   */
  toolImages?: boolean;
  /** Retries after a retryable failure (HTTP 408, 409, 429, 5xx, a dropped connection) before any output (default 2). */
  maxRetries?: number;
  /** First retry delay (ms, default 500); it doubles per retry, capped at 8 s, and `Retry-After` wins. */
  retryBaseMs?: number;
}
