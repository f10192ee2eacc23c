import { HubosError } from '../errors.ts';
import { describeModel, isRetryable, retryDelayMs, toHubosError } from './ai-sdk-errors.ts';
import { toCallOptions } from './ai-sdk-prompt.ts';
import { toChunks } from './ai-sdk-stream.ts';
import type { AiSdkLanguageModel, AiSdkModelOptions } from './ai-sdk-types.ts';
import type { LanguageModel, ModelChunk, ModelRequest } from './model.ts';
import { DEFAULT_RETRY_POLICY, retryReason, sleepUnlessAborted } from './retry-policy.ts';

/** The newest spec version HubOS knows; a newer model is called as this one. */
const NEWEST_SPEC = 4;

/** True for an AI SDK language model object (`openai('gpt-4.1')`, `groq('llama-3.3-70b')`, ...). */
export function isAiSdkModel(value: unknown): value is AiSdkLanguageModel {
  if (typeof value !== 'object' || value === null) return false;
  const model = value as Partial<Record<keyof AiSdkLanguageModel, unknown>>;
  return (
    typeof model.specificationVersion === 'string' &&
    typeof model.doStream === 'function' &&
    typeof model.provider === 'string' &&
    typeof model.modelId === 'string'
  );
}

/**
 * An AI SDK language model (spec v2, v3 or v4, from any provider package) as a HubOS model: the
 * agent's conversation and tools go in as the spec's prompt, its stream comes back as model chunks,
 * and failures become the HubosErrors HubOS's own providers raise. Throws MODEL_CONFIG for a
 * spec version HubOS cannot call (v1).
 */
export function fromAiSdk(model: AiSdkLanguageModel, options: AiSdkModelOptions = {}): LanguageModel {
  const version = specVersion(model);
  return {
    provider: model.provider,
    modelId: model.modelId,
    stream: (request) => streamAiSdk(model, version, options, request),
  };
}

function specVersion(model: AiSdkLanguageModel): number {
  const version = Number(/^v(\d+)$/.exec(model.specificationVersion)?.[1]);
  if (!(version >= 2)) {
    throw new HubosError(
      'MODEL_CONFIG',
      `${describeModel(model)} implements AI SDK model spec "${model.specificationVersion}"; HubOS calls v2 and later: upgrade the provider package`,
      { details: { provider: model.provider, model: model.modelId } },
    );
  }
  return Math.min(version, NEWEST_SPEC);
}

async function* streamAiSdk(
  model: AiSdkLanguageModel,
  version: number,
  options: AiSdkModelOptions,
  request: ModelRequest,
): AsyncGenerator<ModelChunk> {
  const { signal } = request;
  const callOptions = toCallOptions(request, version, options.toolImages ?? false);
  const { stream } = await startStream(model, callOptions, request, options);
  const reader = stream.getReader();
  // A model that ignores its abort signal still stops here: cancelling ends the pending read.
  const cancel = () => void reader.cancel(signal.reason).catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
  const ctx = {
    who: describeModel(model),
    provider: model.provider,
    failure: (error: unknown) => toHubosError(error, model),
  };
  try {
    signal.throwIfAborted();
    yield* toChunks(read(reader), ctx);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw toHubosError(error, model);
  } finally {
    signal.removeEventListener('abort', cancel);
    // Left early (an error, the consumer stopped): the provider must stop streaming too.
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

type CallOptions = Parameters<AiSdkLanguageModel['doStream']>[0];

/** Calls `doStream`, retrying retryable failures: nothing was streamed yet, so a retry is safe. */
async function startStream(
  model: AiSdkLanguageModel,
  callOptions: CallOptions,
  { signal, onRetry }: ModelRequest,
  options: AiSdkModelOptions,
): Promise<{ stream: ReadableStream<unknown> }> {
  const maxRetries = options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries;
  for (let attempt = 0; ; attempt++) {
    signal.throwIfAborted();
    const started = callDoStream(model, callOptions);
    try {
      return await untilAborted(started, signal);
    } catch (error) {
      if (signal.aborted) {
        // A stream that opens after the abort is nobody's: close it.
        started.then(({ stream }) => stream.cancel(signal.reason)).catch(() => undefined);
        throw signal.reason;
      }
      if (!isRetryable(error) || attempt >= maxRetries) throw toHubosError(error, model, attempt);
      const delayMs = retryDelayMs(error, attempt, options.retryBaseMs ?? DEFAULT_RETRY_POLICY.baseMs);
      onRetry?.({ attempt: attempt + 1, reason: retryReason(toHubosError(error, model)), delayMs });
      await sleepUnlessAborted(delayMs, signal);
    }
  }
}

/** `doStream` as a promise, a synchronous throw and an answer without a stream included. */
function callDoStream(
  model: AiSdkLanguageModel,
  callOptions: CallOptions,
): Promise<{ stream: ReadableStream<unknown> }> {
  try {
    return Promise.resolve(model.doStream(callOptions)).then((result) => {
      const stream = (result as { stream?: unknown } | null | undefined)?.stream;
      if (!(stream instanceof ReadableStream)) {
        throw new HubosError(
          'MODEL_RESPONSE_INVALID',
          `${describeModel(model)}: doStream() resolved without a ReadableStream under "stream"; is this an AI SDK language model?`,
        );
      }
      return { stream };
    });
  } catch (error) {
    return Promise.reject(error);
  }
}

async function* read(reader: ReadableStreamDefaultReader<unknown>): AsyncGenerator<unknown> {
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}

/** `promise`, or the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(promise)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}
