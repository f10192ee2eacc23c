import type { Bus } from '../bus/bus.ts';
import type { LanguageModel, ModelRequest } from './model.ts';
import { sleepUnlessAborted } from './retry-policy.ts';
import { CHARS_PER_TOKEN } from './tokens.ts';

/** The limits of one provider, shared by every model of it and every instance on the bus. */
export interface ProviderRateLimit {
  /** Model calls streaming at once. */
  concurrency?: number;
  /** Tokens per minute: the request's estimated input plus its `maxTokens`. */
  tokensPerMinute?: number;
  /** Model calls started per minute. */
  requestsPerMinute?: number;
}

/** `rateLimits` in the config: limits by provider id (`openai`, `anthropic`, ...). */
export type RateLimits = Record<string, ProviderRateLimit>;

export const RATE_LIMITS_CONFIG_SCHEMA = {
  type: 'object',
  description:
    "Limits per model provider (by its id, e.g. 'openai'), shared by every instance on the bus: a call waits for its turn instead of being refused by the provider.",
  propertyNames: { pattern: '^[a-zA-Z0-9_.-]{1,64}$' },
  additionalProperties: {
    type: 'object',
    properties: {
      concurrency: { type: 'integer', minimum: 1, description: 'Model calls streaming at once.' },
      tokensPerMinute: {
        type: 'integer',
        minimum: 1,
        description: "Tokens per minute: each call's estimated input plus its maxTokens.",
      },
      requestsPerMinute: { type: 'integer', minimum: 1, description: 'Model calls started per minute.' },
    },
    additionalProperties: false,
  },
} as const;

const MINUTE_MS = 60_000;
/** A slot is held at most this long: one of an instance that died frees itself then. */
const SLOT_TTL_MS = 10 * MINUTE_MS;
const POLL_MIN_MS = 20;
const POLL_MAX_MS = 250;

/**
 * Makes the models of providers with limits wait their turn: a call takes a concurrency slot and
 * counts its request and estimated tokens in the current minute (on the bus, so every instance
 * shares them), waiting while a limit is reached. The slot is given back when the stream ends.
 */
export class ModelRateLimiter {
  readonly #bus: Bus;
  readonly #limits: RateLimits;

  constructor(bus: Bus, limits: RateLimits = {}) {
    this.#bus = bus;
    this.#limits = limits;
  }

  /** `model` waiting for its provider's limits; as it is when its provider has none. */
  wrap(model: LanguageModel): LanguageModel {
    const limit = this.#limits[model.provider];
    if (!limit || Object.keys(limit).length === 0) return model;
    const limiter = this;
    return {
      provider: model.provider,
      modelId: model.modelId,
      async *stream(request) {
        const release = await limiter.acquire(model.provider, limit, request);
        try {
          yield* model.stream(request);
        } finally {
          await release();
        }
      },
    };
  }

  /** Waits for a turn under `limit`; resolves with what gives the slot back. */
  async acquire(
    provider: string,
    limit: ProviderRateLimit,
    request: ModelRequest,
  ): Promise<() => Promise<void>> {
    const { signal } = request;
    if (limit.requestsPerMinute)
      await this.#window(`model-rpm:${provider}`, limit.requestsPerMinute, 1, signal);
    if (limit.tokensPerMinute)
      await this.#window(`model-tpm:${provider}`, limit.tokensPerMinute, tokensOf(request), signal);
    if (!limit.concurrency) return async () => undefined;
    const key = `model-concurrency:${provider}`;
    for (let wait = POLL_MIN_MS; ; wait = Math.min(wait * 2, POLL_MAX_MS)) {
      const slot = await this.#bus.acquire(key, limit.concurrency, SLOT_TTL_MS);
      if (slot !== undefined) return () => this.#bus.release(key, slot).catch(() => undefined);
      await sleepUnlessAborted(wait, signal);
    }
  }

  /** Counts `amount` in the minute's window, waiting for the next window while it would pass `max`. */
  async #window(key: string, max: number, amount: number, signal: AbortSignal): Promise<void> {
    for (;;) {
      const { count, resetMs } = await this.#bus.hit(key, MINUTE_MS, amount);
      // A call larger than the whole limit goes alone, in a window of its own.
      if (count <= max || count === amount) return;
      await sleepUnlessAborted(Math.max(resetMs, POLL_MIN_MS), signal);
    }
  }
}

/** A request's tokens for the limit: the cheap estimate of what is sent (as `estimateTokens`), plus the answer's cap. */
function tokensOf(request: ModelRequest): number {
  let chars = request.system?.length ?? 0;
  for (const message of request.messages) chars += message.content.length;
  for (const tool of request.tools)
    chars += tool.description.length + JSON.stringify(tool.inputSchema).length;
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN) + (request.maxTokens ?? 0));
}
