import type { FinishReason, LanguageModel, ModelChunk, ModelRequest, Usage } from '../core/index.ts';
import { HubosError } from '../core/index.ts';

/** One scripted answer. A string is a plain text answer. */
export type ScriptedResponse =
  | string
  | {
      /** Streamed word by word as text deltas. */
      text?: string;
      toolCalls?: { name: string; input?: unknown; id?: string }[];
      /** Exact chunks to stream instead (for testing stream handling). */
      chunks?: ModelChunk[];
      /** Fail the call with this error (a string becomes a HubosError MODEL_HTTP_ERROR). */
      error?: Error | string;
      /** Wait this long first (the request's signal cuts it short). */
      delayMs?: number;
      usage?: Partial<Usage>;
      finishReason?: FinishReason;
    };

export type ScriptStep =
  | ScriptedResponse
  | ((request: ModelRequest) => ScriptedResponse | Promise<ScriptedResponse>);

/**
 * A LanguageModel that answers from a script, for testing agents and plugins without a network:
 * `new ScriptedModel([{ toolCalls: [{ name: 'clock_now' }] }, 'It is noon.'])`. It records every
 * request (`requests`) and `assertConsumed()` fails if part of the script was never used.
 */
export class ScriptedModel implements LanguageModel {
  readonly provider = 'scripted';
  readonly modelId: string;
  readonly requests: ModelRequest[] = [];
  readonly #script: ScriptStep[];
  #callIds = 0;

  constructor(script: ScriptStep[] = [], options: { modelId?: string } = {}) {
    this.#script = [...script];
    this.modelId = options.modelId ?? 'scripted';
  }

  /** Adds responses to the end of the script. */
  push(...steps: ScriptStep[]): this {
    this.#script.push(...steps);
    return this;
  }

  /** How many scripted responses are left. */
  get remaining(): number {
    return this.#script.length;
  }

  /** Throws if the agent made fewer model calls than scripted. */
  assertConsumed(): void {
    if (this.#script.length > 0) {
      throw new Error(
        `ScriptedModel: ${this.#script.length} scripted response(s) were never requested (${this.requests.length} made)`,
      );
    }
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelChunk> {
    this.requests.push({ ...request, messages: structuredClone(request.messages) });
    const next = this.#script.shift();
    if (next === undefined) {
      throw new HubosError(
        'MODEL_RESPONSE_INVALID',
        `ScriptedModel: no scripted response left for call #${this.requests.length} (script more responses)`,
      );
    }
    const response = typeof next === 'function' ? await next(request) : next;
    const step = typeof response === 'string' ? { text: response } : response;
    if (step.delayMs) await sleep(step.delayMs, request.signal);
    request.signal.throwIfAborted();
    if (step.error !== undefined) {
      throw typeof step.error === 'string' ? new HubosError('MODEL_HTTP_ERROR', step.error) : step.error;
    }
    if (step.chunks) {
      for (const chunk of step.chunks) yield chunk;
      return;
    }
    if (step.text)
      for (const word of step.text.match(/\S+\s*|\s+/g) ?? []) yield { type: 'text-delta', delta: word };
    for (const call of step.toolCalls ?? []) {
      const id = call.id ?? `call_${++this.#callIds}`;
      yield { type: 'tool-call-start', id, name: call.name };
      yield { type: 'tool-call', id, name: call.name, input: call.input ?? {} };
    }
    const finishReason = step.finishReason ?? (step.toolCalls?.length ? 'tool-calls' : 'stop');
    yield { type: 'finish', finishReason, usage: step.usage ?? { inputTokens: 10, outputTokens: 5 } };
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
