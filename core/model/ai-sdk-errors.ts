import { errorMessage, HubosError } from '../errors.ts';
import { backoffMs, retryAfterMs } from './retry-policy.ts';

/** What names the model in error messages and details. */
export interface ModelIdentity {
  provider: string;
  modelId: string;
}

/** The fields of an AI SDK error HubOS reads (`APICallError` has the HTTP ones). */
interface AiSdkErrorLike {
  name?: unknown;
  message?: unknown;
  statusCode?: unknown;
  responseBody?: unknown;
  isRetryable?: unknown;
  type?: unknown;
}

// The AI SDK errors that mean the setup is wrong (a missing key, a feature the provider lacks).
const CONFIG_ERRORS = new Set([
  'AI_LoadAPIKeyError',
  'AI_LoadSettingError',
  'AI_UnsupportedFunctionalityError',
  'AI_InvalidPromptError',
  'AI_InvalidArgumentError',
  'AI_NoSuchModelError',
]);

// The AI SDK errors that mean the provider's answer could not be read.
const RESPONSE_ERRORS = new Set([
  'AI_JSONParseError',
  'AI_InvalidResponseDataError',
  'AI_TypeValidationError',
  'AI_EmptyResponseBodyError',
]);

/** `groq.chat model "llama-3.3-70b"`: how messages name the model. */
export function describeModel({ provider, modelId }: ModelIdentity): string {
  return `${provider} model "${modelId}"`;
}

/**
 * An AI SDK failure (a thrown error or an `error` stream part) as a HubosError with the codes
 * HubOS's own providers use: MODEL_HTTP_ERROR (with the HTTP status), MODEL_TIMEOUT, MODEL_CONFIG,
 * MODEL_RESPONSE_INVALID. `retries` is how many retries came before it.
 * @internal
 */
export function toHubosError(error: unknown, model: ModelIdentity, retries = 0): HubosError {
  if (HubosError.is(error)) return error;
  const who = describeModel(model);
  const e = (typeof error === 'object' && error !== null ? error : { message: error }) as AiSdkErrorLike;
  const name = typeof e.name === 'string' ? e.name : undefined;
  const message = typeof e.message === 'string' && e.message ? e.message : errorMessage(error);
  const details = { provider: model.provider, model: model.modelId };
  if (name === 'TimeoutError')
    return new HubosError('MODEL_TIMEOUT', `${who} did not answer in time: ${message}`, {
      cause: error,
      details,
    });
  if (name && CONFIG_ERRORS.has(name))
    return new HubosError('MODEL_CONFIG', `${who}: ${message}`, { cause: error, details });
  if (name && RESPONSE_ERRORS.has(name))
    return new HubosError('MODEL_RESPONSE_INVALID', `${who} sent an answer HubOS cannot read: ${message}`, {
      cause: error,
      details,
    });
  const status = typeof e.statusCode === 'number' ? e.statusCode : undefined;
  const tried = retries > 0 ? ` (gave up after ${retries} ${retries === 1 ? 'retry' : 'retries'})` : '';
  if (status !== undefined)
    return new HubosError('MODEL_HTTP_ERROR', `${who}: ${statusMessage(status, message)}${tried}`, {
      cause: error,
      details: { ...details, status },
    });
  if (name === 'AI_APICallError')
    return new HubosError('MODEL_HTTP_ERROR', `${who}: connection failed: ${message}${tried}`, {
      cause: error,
      details: { ...details, status: undefined },
    });
  // A provider's own error object from the stream (`{ type, message }`), or an unexpected throw.
  const type = typeof e.type === 'string' ? ` (${e.type})` : '';
  return new HubosError('MODEL_HTTP_ERROR', `${who} reported an error${type}: ${message}${tried}`, {
    cause: error,
    details: { ...details, status: undefined },
  });
}

function statusMessage(status: number, message: string): string {
  const http = `HTTP ${status}: ${message}`;
  // A 2xx: the answer had begun (the status was fine) when the connection broke.
  if (status >= 200 && status < 300)
    return `the connection dropped while the answer streamed in (${http}); try again`;
  if (status === 401 || status === 403)
    return `the API key was rejected (${http}); check the key given to the AI SDK provider (its apiKey option or environment variable)`;
  if (status === 429) return `rate limited (${http}); wait and try again, or lower the request rate`;
  if (status >= 500) return `the provider failed (${http}); try again later`;
  return `the request was refused (${http}); check the model id and the agent's settings`;
}

/** Whether the AI SDK marked a failure as worth retrying (429, 5xx, a dropped connection). */
export function isRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as AiSdkErrorLike).isRetryable === true;
}

/** The wait before retry `attempt` (0-based): `Retry-After` when the provider sent one, else backoff with jitter. */
export function retryDelayMs(error: unknown, attempt: number, baseMs: number): number {
  const headers = (error as { responseHeaders?: unknown }).responseHeaders;
  const after =
    typeof headers === 'object' && headers !== null
      ? retryAfterMs(headers as Record<string, string | undefined>)
      : undefined;
  return after ?? backoffMs(attempt, baseMs);
}
