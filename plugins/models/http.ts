import type { Agent, Dispatcher } from 'undici';
import {
  backoffMs,
  DEFAULT_RETRY_POLICY,
  errorMessage,
  HubosError,
  isRetryableStatus,
  type ModelRetry,
  retryAfterMs,
  retryReason,
} from '../../core/index.ts';
import { sleepUnlessAborted } from '../../core/internal.ts';

export interface HttpClientOptions {
  /** Provider id, named in every error (`openai`, `anthropic`). */
  provider: string;
  /** Longest wait for the connection, the response headers, and between two body chunks. */
  timeoutMs?: number;
  /** Retries after a 429, a 5xx or a connection error (so `maxRetries + 1` attempts at most). */
  maxRetries?: number;
  /** First backoff delay; it doubles per retry (capped at 8 s) with jitter. */
  retryBaseMs?: number;
  /** How to fix a rejected key, e.g. 'set OPENAI_API_KEY or the config key openai.apiKey'. */
  authHint: string;
}

export interface PostOptions {
  headers: Record<string, string>;
  signal: AbortSignal;
  /** Told of each retry before it waits (the request's `onRetry`). */
  onRetry?: ((retry: ModelRetry) => void) | undefined;
}

/** A 2xx response whose body is still unread. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body bytes. Failures arrive as HubosErrors (or the abort reason); leaving the loop early closes the socket. */
  chunks(): AsyncIterable<Uint8Array>;
  /** The whole body parsed as JSON (MODEL_RESPONSE_INVALID if it is not). */
  json(): Promise<unknown>;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_ERROR_BODY = 64 * 1024;

// Failures before any response byte arrived: nothing was streamed, so a retry is safe.
const RETRYABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * POSTs JSON for one provider instance through its own keep-alive pool, with timeouts and retries.
 * Retries happen only before the body is handed out: once a caller reads it, a failure is final.
 */
export class HttpClient {
  readonly provider: string;
  readonly #options: Required<HttpClientOptions>;
  #undici: Promise<{ agent: Agent; request: typeof import('undici').request }> | undefined;
  #closed: Promise<void> | undefined;

  constructor(options: HttpClientOptions) {
    this.provider = options.provider;
    this.#options = {
      provider: options.provider,
      authHint: options.authHint,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
      retryBaseMs: options.retryBaseMs ?? DEFAULT_RETRY_POLICY.baseMs,
    };
  }

  /** undici and the pool, made with the first request: a config whose model is never called never loads them. */
  #client(): Promise<{ agent: Agent; request: typeof import('undici').request }> {
    this.#undici ??= import('undici').then(({ Agent, request }) => {
      const timeout = this.#options.timeoutMs;
      return {
        agent: new Agent({ headersTimeout: timeout, bodyTimeout: timeout, connect: { timeout } }),
        request,
      };
    });
    return this.#undici;
  }

  async post(url: string, body: unknown, { headers, signal, onRetry }: PostOptions): Promise<HttpResponse> {
    const payload = JSON.stringify(body);
    const { maxRetries, timeoutMs } = this.#options;
    if (this.#closed) {
      throw new HubosError('MODEL_HTTP_ERROR', `${this.provider} client is closed (the kernel closed)`, {
        details: { provider: this.provider, status: undefined },
      });
    }
    const { agent, request } = await this.#client();
    for (let attempt = 0; ; attempt++) {
      signal.throwIfAborted();
      let response: Dispatcher.ResponseData;
      try {
        response = await request(url, {
          dispatcher: agent,
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: payload,
          signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const failure = this.#transportError(error, attempt, `calling ${url}`);
        if (!isRetryable(error) || attempt >= maxRetries) throw failure;
        await this.#wait(failure, attempt, this.#backoff(attempt), signal, onRetry);
        continue;
      }
      if (response.statusCode < 300) return this.#wrap(response, signal);

      const failure = await this.#statusError(response, signal, attempt);
      if (!isRetryableStatus(response.statusCode) || attempt >= maxRetries) throw failure;
      const delayMs = retryAfterMs(response.headers) ?? this.#backoff(attempt);
      await this.#wait(failure, attempt, delayMs, signal, onRetry);
    }
  }

  /** Closes the pool, ending any socket still open: called when the kernel closes. */
  close(): Promise<void> {
    this.#closed ??= this.#undici ? this.#undici.then(({ agent }) => agent.destroy()) : Promise.resolve();
    return this.#closed;
  }

  /** Maps a failure while reading a response body (timeout, reset, abort). */
  #bodyError(error: unknown, signal: AbortSignal): unknown {
    if (signal.aborted) return signal.reason;
    if (HubosError.is(error)) return error;
    return this.#transportError(error, 0, 'while reading the response');
  }

  #wrap(response: Dispatcher.ResponseData, signal: AbortSignal): HttpResponse {
    const client = this;
    const body = response.body;
    async function* chunks(): AsyncGenerator<Uint8Array> {
      try {
        for await (const chunk of body) yield chunk as Uint8Array;
      } catch (error) {
        throw client.#bodyError(error, signal);
      } finally {
        // Breaking out of the loop (or an abort) must not leave the socket streaming.
        if (!body.destroyed) body.destroy();
      }
    }
    return {
      status: response.statusCode,
      headers: response.headers,
      chunks,
      async json() {
        // Read whole by undici (no generator per chunk): the common path of a non-streamed answer.
        let text: string;
        try {
          text = await body.text();
        } catch (error) {
          throw client.#bodyError(error, signal);
        }
        try {
          return JSON.parse(text);
        } catch {
          throw new HubosError(
            'MODEL_RESPONSE_INVALID',
            `${client.provider} answered with a body that is not JSON: ${snippet(text)}`,
            { details: { provider: client.provider } },
          );
        }
      },
    };
  }

  async #statusError(response: Dispatcher.ResponseData, signal: AbortSignal, attempt: number) {
    const status = response.statusCode;
    const text = await readCapped(response.body).catch((error) => {
      if (signal.aborted) throw signal.reason;
      return `(the error body could not be read: ${errorMessage(error)})`;
    });
    const providerMessage = extractErrorMessage(text) || `HTTP ${status}`;
    const requestId = header(response.headers, 'x-request-id') ?? header(response.headers, 'request-id');
    const { provider, authHint } = this.#options;
    const tried = attempt > 0 ? ` (gave up after ${attempt} ${attempt === 1 ? 'retry' : 'retries'})` : '';
    const message =
      status === 401 || status === 403
        ? `${provider} rejected the API key (HTTP ${status}: ${providerMessage}); ${authHint}`
        : `${provider} request failed with HTTP ${status}: ${providerMessage}${tried}`;
    return new HubosError('MODEL_HTTP_ERROR', message, {
      details: { provider, status, ...(requestId ? { requestId } : {}) },
    });
  }

  #transportError(error: unknown, attempt: number, during: string): HubosError {
    const { provider, timeoutMs } = this.#options;
    const code = errorCode(error);
    const tried = attempt > 0 ? ` (gave up after ${attempt} ${attempt === 1 ? 'retry' : 'retries'})` : '';
    if (code && TIMEOUT_CODES.has(code)) {
      return new HubosError(
        'MODEL_TIMEOUT',
        `${provider} did not answer within ${timeoutMs} ms ${during}${tried}; raise timeoutMs if the model needs longer`,
        { cause: error, details: { provider, timeoutMs } },
      );
    }
    const reason = code ? `${errorMessage(error)} [${code}]` : errorMessage(error);
    return new HubosError('MODEL_HTTP_ERROR', `${provider} connection failed ${during}: ${reason}${tried}`, {
      cause: error,
      details: { provider, status: undefined },
    });
  }

  #backoff(attempt: number): number {
    return backoffMs(attempt, this.#options.retryBaseMs);
  }

  /** Reports the retry, then waits before it. */
  #wait(
    failure: HubosError,
    attempt: number,
    delayMs: number,
    signal: AbortSignal,
    onRetry: PostOptions['onRetry'],
  ): Promise<void> {
    onRetry?.({ attempt: attempt + 1, reason: retryReason(failure), delayMs });
    return sleepUnlessAborted(delayMs, signal);
  }
}

export { retryAfterMs };

/** The message in a provider error body: `{error:{message}}` (OpenAI, Anthropic), `{error:"..."}`, `{message}`. */
export function extractErrorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    const error = body.error as { message?: unknown } | string | undefined;
    if (typeof error === 'string') return error;
    if (typeof error?.message === 'string') return error.message;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // Not JSON: a proxy's HTML page or plain text; show its start.
  }
  return snippet(text);
}

/** The start of a text, on one line, for error messages. */
export function snippet(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

async function readCapped(body: Dispatcher.ResponseData['body']): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      parts.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= MAX_ERROR_BODY) break;
    }
  } finally {
    if (!body.destroyed) body.destroy();
  }
  return Buffer.concat(parts).toString('utf8');
}

function isRetryable(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && RETRYABLE_CODES.has(code);
}

// undici puts the socket's code on the error or on its cause.
function errorCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
  }
  return undefined;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** JSON Schema properties of the connection options every provider accepts (config and factory alike). */
export const HTTP_OPTIONS_PROPERTIES = {
  timeoutMs: {
    type: 'integer',
    minimum: 1,
    description: 'Longest wait for the connection, the response headers and between streamed chunks (ms).',
  },
  maxRetries: {
    type: 'integer',
    minimum: 0,
    description: 'Retries after HTTP 429, 5xx or a connection error.',
  },
  retryBaseMs: { type: 'integer', minimum: 0, description: 'First retry delay (ms); it doubles per retry.' },
  headers: {
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Extra HTTP headers sent with every request.',
  },
  stream: {
    type: 'boolean',
    description: 'Stream the answer (default true); false asks for one JSON reply.',
  },
} as const;

/** Factory options win over config options; `headers` merge key by key. Undefined values never override. */
export function mergeOptions<T extends { headers?: Record<string, string> }>(
  factory: T,
  config: T | undefined,
): T {
  const defined = (value: object) => Object.entries(value).filter(([, v]) => v !== undefined);
  const merged = Object.fromEntries([...defined(config ?? {}), ...defined(factory)]) as T;
  const headers = { ...config?.headers, ...factory.headers };
  if (Object.keys(headers).length > 0) merged.headers = headers;
  return merged;
}

/** An environment variable, with an empty value read as unset (as the official SDKs do). */
export function fromEnv(name: string): string | undefined {
  return process.env[name] || undefined;
}

/** An error the provider reported inside a 200 response (mid-stream or in a JSON reply). */
export function providerError(provider: string, error: unknown): HubosError {
  const e = (typeof error === 'object' && error !== null ? error : { message: error }) as {
    message?: unknown;
    type?: unknown;
    code?: unknown;
  };
  const message = typeof e.message === 'string' ? e.message : snippet(JSON.stringify(error) ?? String(error));
  const type = typeof e.type === 'string' ? e.type : undefined;
  return new HubosError(
    'MODEL_HTTP_ERROR',
    `${provider} reported an error${type ? ` (${type})` : ''}: ${message}`,
    {
      details: {
        provider,
        status: typeof e.code === 'number' ? e.code : undefined,
        ...(type ? { type } : {}),
      },
    },
  );
}
