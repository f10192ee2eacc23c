import { HubosError } from '../errors.ts';
import { type LanguageModel, type ModelChunk, type ModelRequest, modelRefOf } from './model.ts';
import { ResumedCalls } from './resumed-calls.ts';
import { ResumedText } from './resumed-text.ts';
import {
  backoffMs,
  DEFAULT_RETRY_POLICY,
  isTransientModelFailure,
  type RetryPolicy,
  retryReason,
  sleepUnlessAborted,
} from './retry-policy.ts';

/** How a fallback chain retries its models. */
export interface FallbackOptions {
  /** Retries of one model after its stream dropped mid-answer or timed out, before failing over. */
  retry?: Partial<RetryPolicy>;
}

/** A chain of models called as one: the first, then the next when one stays down. */
export interface FallbackModel extends LanguageModel {
  /** The chain, in the order they are tried. */
  readonly models: readonly LanguageModel[];
}

export function isFallbackModel(model: LanguageModel): model is FallbackModel {
  return Array.isArray((model as FallbackModel).models);
}

/**
 * One `LanguageModel` over a chain of models, so the agent loop is unchanged. A model's own
 * provider retries failures before the answer began (429, 5xx, a refused connection, honouring
 * `Retry-After`); this retries the same model when its stream dropped mid-answer or timed out, then
 * fails over to the next model when a model stays down. Text already passed on is never passed on
 * twice: the new answer's repeat of it is skipped (see `ResumedText`); nor is a tool call's start
 * (see `ResumedCalls`). Failures that another try
 * cannot fix (a refused key, a bad request, a setup mistake) are thrown as they are. Named after its
 * first model.
 */
export function fallbackModel(
  models: readonly LanguageModel[],
  options: FallbackOptions = {},
): FallbackModel {
  if (models.length === 0) throw new HubosError('MODEL_CONFIG', 'a fallback chain needs at least one model');
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const chain = [...models];
  return {
    provider: chain[0]!.provider,
    modelId: chain[0]!.modelId,
    models: chain,
    stream: (request) => streamChain(chain, policy, request),
  };
}

async function* streamChain(
  chain: readonly LanguageModel[],
  policy: RetryPolicy,
  request: ModelRequest,
): AsyncGenerator<ModelChunk> {
  const text = new ResumedText();
  const calls = new ResumedCalls();
  // A whole tool call handed on cannot be taken back: after one, a failure is final.
  let callsPassed = 0;
  for (const [index, model] of chain.entries()) {
    const ref = modelRefOf(model);
    const nextModel = chain[index + 1];
    for (let attempt = 0; ; attempt++) {
      const onRetry: ModelRequest['onRetry'] = request.onRetry
        ? (retry) => request.onRetry!({ ...retry, model: retry.model ?? ref, next: retry.next ?? ref })
        : undefined;
      let began = false;
      text.restart();
      calls.restart();
      try {
        for await (const chunk of model.stream({ ...request, ...(onRetry ? { onRetry } : {}) })) {
          began = true;
          if (chunk.type === 'text-delta') {
            const delta = text.push(chunk.delta);
            if (delta) yield { type: 'text-delta', delta };
            continue;
          }
          if (chunk.type === 'tool-call-start' || chunk.type === 'tool-call-delta') {
            // A call started before a retry is not started twice.
            const live =
              chunk.type === 'tool-call-start'
                ? calls.start(chunk.id, chunk.name)
                : calls.delta(chunk.id, chunk.delta);
            if (live) yield live;
            continue;
          }
          if (chunk.type === 'finish') text.end();
          if (chunk.type === 'tool-call') {
            callsPassed++;
            yield calls.end(chunk);
            continue;
          }
          yield chunk;
        }
        return;
      } catch (error) {
        if (request.signal.aborted || callsPassed > 0 || !isTransientModelFailure(error)) throw error;
        // A provider retried its own failures before the answer began; a dropped stream or a
        // timeout it did not: those are retried here, on the same model, first.
        const retrySame =
          (began || (error as HubosError).code === 'MODEL_TIMEOUT') && attempt < policy.maxRetries;
        if (!retrySame && !nextModel) throw error;
        const delayMs = retrySame ? backoffMs(attempt, policy.baseMs) : 0;
        request.onRetry?.({
          model: ref,
          attempt: attempt + 1,
          reason: retryReason(error),
          delayMs,
          next: retrySame ? ref : modelRefOf(nextModel!),
        });
        if (delayMs > 0) await sleepUnlessAborted(delayMs, request.signal);
        if (!retrySame) break;
      }
    }
  }
}
