import type { Usage } from '../agent/messages.ts';
import { HubosError } from '../errors.ts';
import type { FinishReason, ModelChunk } from './model.ts';

/** The fields of the stream parts HubOS reads; the others (reasoning, sources, metadata) pass by. */
interface StreamPart {
  type: string;
  id?: string;
  delta?: string;
  toolName?: string;
  toolCallId?: string;
  input?: unknown;
  providerExecuted?: boolean;
  finishReason?: unknown;
  usage?: unknown;
  error?: unknown;
}

/** Who is answering, for messages, and how a failure the stream reports becomes a HubosError. */
export interface StreamContext {
  who: string;
  provider: string;
  failure(error: unknown): HubosError;
}

/**
 * Turns AI SDK stream parts into model chunks: text, tool calls (started, streamed, then whole
 * with parsed input), and one finish with the reason and usage. An `error` part ends the stream
 * with its error, as a HubOS provider's mid-stream error does.
 * @internal
 */
export async function* toChunks(
  parts: AsyncIterable<unknown>,
  ctx: StreamContext,
): AsyncGenerator<ModelChunk> {
  const started = new Set<string>();
  // Calls the provider runs itself (its built-in tools): the agent has nothing to run for them.
  const providerRun = new Set<string>();
  let calls = 0;
  let finish: StreamPart | undefined;
  for await (const raw of parts) {
    const part = raw as StreamPart;
    switch (part.type) {
      case 'text-delta':
        if (part.delta) yield { type: 'text-delta', delta: part.delta };
        break;
      case 'tool-input-start':
        if (part.providerExecuted) providerRun.add(part.id!);
        else if (!started.has(part.id!)) {
          started.add(part.id!);
          yield { type: 'tool-call-start', id: part.id!, name: part.toolName! };
        }
        break;
      case 'tool-input-delta':
        if (part.delta && started.has(part.id!))
          yield { type: 'tool-call-delta', id: part.id!, delta: part.delta };
        break;
      case 'tool-call': {
        const id = part.toolCallId!;
        if (part.providerExecuted || providerRun.has(id)) break;
        if (!started.has(id)) yield { type: 'tool-call-start', id, name: part.toolName! };
        started.add(id);
        calls++;
        yield { type: 'tool-call', id, name: part.toolName!, input: parseToolInput(part.input) };
        break;
      }
      case 'finish':
        finish = part;
        break;
      case 'error':
        throw ctx.failure(part.error);
    }
  }
  if (!finish) throw incomplete(ctx);
  const usage = toUsage(finish.usage);
  yield {
    type: 'finish',
    finishReason: toFinishReason(finish.finishReason, calls > 0, ctx),
    ...(usage && { usage }),
  };
}

/** The spec's input is the JSON text: empty means `{}`, text that is not JSON stays raw for the agent to refuse. */
function parseToolInput(input: unknown): unknown {
  if (typeof input !== 'string') return input ?? {};
  if (input.trim() === '') return {};
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

/** v2 gives the reason as a string, v3 and later as `{ unified, raw }`. */
function toFinishReason(reason: unknown, hasCalls: boolean, ctx: StreamContext): FinishReason {
  const unified =
    typeof reason === 'object' && reason !== null ? (reason as { unified?: unknown }).unified : reason;
  switch (unified) {
    case 'stop':
    case 'length':
    case 'content-filter':
      return unified;
    case 'tool-calls':
      return hasCalls ? 'tool-calls' : 'other';
    case 'interrupted':
      throw incomplete(ctx);
    case 'error': {
      const raw = typeof reason === 'object' ? (reason as { raw?: unknown }).raw : undefined;
      throw new HubosError(
        'MODEL_RESPONSE_INVALID',
        `${ctx.who} stopped on an error${typeof raw === 'string' ? ` (${raw})` : ''}; try again`,
        { details: { provider: ctx.provider } },
      );
    }
    default:
      return hasCalls ? 'tool-calls' : 'other';
  }
}

function incomplete(ctx: StreamContext): HubosError {
  return new HubosError(
    'MODEL_RESPONSE_INVALID',
    `${ctx.who}: the stream ended before the answer was complete`,
    {
      details: { provider: ctx.provider },
    },
  );
}

/**
 * v2 counts tokens as numbers (cached ones in `cachedInputTokens`), v3 and later as `{ total,
 * cacheRead, ... }` objects: HubOS takes the totals, and the prompt tokens read from the cache.
 */
function toUsage(usage: unknown): Partial<Usage> | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const { inputTokens, outputTokens, cachedInputTokens } = usage as {
    inputTokens?: unknown;
    outputTokens?: unknown;
    cachedInputTokens?: unknown;
  };
  const input = tokenCount(inputTokens);
  const output = tokenCount(outputTokens);
  if (input === undefined && output === undefined) return undefined;
  const cacheRead =
    typeof inputTokens === 'object' && inputTokens !== null
      ? (inputTokens as { cacheRead?: unknown }).cacheRead
      : cachedInputTokens;
  return {
    ...(input !== undefined && { inputTokens: input }),
    ...(output !== undefined && { outputTokens: output }),
    ...(typeof cacheRead === 'number' && Number.isFinite(cacheRead) && { cachedInputTokens: cacheRead }),
  };
}

function tokenCount(count: unknown): number | undefined {
  const total = typeof count === 'object' && count !== null ? (count as { total?: unknown }).total : count;
  return typeof total === 'number' && Number.isFinite(total) ? total : undefined;
}
