import { HubosError } from '../errors.ts';

/**
 * The one retry policy of model calls. Providers retry a failure before the answer's body (a 429,
 * a 5xx, a refused connection: nothing was streamed yet); a fallback chain retries a stream that
 * dropped mid-answer, then fails over. Both wait as this says: `Retry-After` when the provider sent
 * one, else exponential backoff with jitter.
 */
export interface RetryPolicy {
  /** Retries after the first attempt (so `maxRetries + 1` attempts at most). */
  maxRetries: number;
  /** First backoff delay (ms); it doubles per retry, capped at 8 s. */
  baseMs: number;
}

/** Two retries, from 500 ms: what providers and fallback chains use unless told otherwise. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseMs: 500 };

const MAX_BACKOFF_MS = 8_000;
/** A `Retry-After` longer than this is waited only this long: a run must not hang for an hour. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** One retry or failover of a model call, as a provider or a fallback chain reports it. */
export interface ModelRetry {
  /** The model that failed (`provider:model`); a provider may leave it for the chain to fill. */
  model?: string;
  /** 1 for the first retry of this model. */
  attempt: number;
  reason: { code: string; message: string; status?: number };
  /** How long before the next attempt. */
  delayMs: number;
  /** The model tried next: the same one on a retry, the fallback on a failover. */
  next?: string;
}

/** The wait before retry `attempt` (0-based) without a `Retry-After`: doubling, capped, with jitter. */
export function backoffMs(attempt: number, baseMs: number): number {
  const delay = Math.min(baseMs * 2 ** attempt, MAX_BACKOFF_MS);
  // Jitter spreads out clients that failed together so they do not retry in lockstep.
  return delay * (0.75 + Math.random() * 0.25);
}

/** `retry-after-ms`, or `Retry-After` (seconds or an HTTP date), capped at 60 s; undefined when absent or unreadable. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>): number | undefined {
  const header = (name: string) => {
    const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return (Array.isArray(entry) ? entry[0] : entry)?.trim() || undefined;
  };
  const ms = Number(header('retry-after-ms'));
  if (header('retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0)
    return Math.min(ms, MAX_RETRY_AFTER_MS);
  const value = header('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds < 0 ? undefined : Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - Date.now()), MAX_RETRY_AFTER_MS);
}

/** Whether an HTTP status is worth another try: rate limited, or the provider failed. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Whether a model call's failure is the provider's (down, overloaded, slow, a dropped stream) and
 * another try (or another model) may succeed. A refused key or a bad request is not: retrying it
 * fails the same way. A setup mistake (MODEL_CONFIG) is never retried nor failed over: it is said.
 */
export function isTransientModelFailure(error: unknown): boolean {
  if (!HubosError.is(error)) return false;
  if (error.code === 'MODEL_TIMEOUT') return true;
  // A broken stream (cut JSON, a stream ended early) is what a dropped connection looks like.
  if (error.code === 'MODEL_RESPONSE_INVALID') return true;
  if (error.code !== 'MODEL_HTTP_ERROR') return false;
  const status = (error.details as { status?: unknown } | undefined)?.status;
  // No status: the connection failed or dropped, or the provider reported an error mid-stream.
  return typeof status !== 'number' || isRetryableStatus(status) || (status >= 200 && status < 300);
}

/** The reason a retry event gives for a failure. */
export function retryReason(error: unknown): ModelRetry['reason'] {
  if (HubosError.is(error)) {
    const status = (error.details as { status?: unknown } | undefined)?.status;
    return { code: error.code, message: error.message, ...(typeof status === 'number' ? { status } : {}) };
  }
  return { code: 'MODEL_HTTP_ERROR', message: error instanceof Error ? error.message : String(error) };
}

/**
 * Waits `ms`, or rejects with the signal's reason as soon as it aborts.
 * @internal
 */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
