import { SUMMARY_INSTRUCTIONS } from '../../core/context/summarize.ts';
import type { LanguageModel, ModelChunk, ModelRequest } from '../../core/index.ts';
import { estimateTokens } from '../../core/index.ts';

/** `fact: <name> = <value>` lines: what a summary must keep. */
const FACT = /fact: [a-z0-9_]+ = [a-z0-9]+/g;

/**
 * A model for compaction tests: as a summarizer it keeps the `fact:` lines of what it reads; as the
 * agent's model it answers `what is <name>?` from the facts it can see, and refuses a request over
 * its window as a provider would.
 */
export class NoteModel implements LanguageModel {
  readonly provider = 'fake';
  readonly modelId = 'notes';
  readonly requests: ModelRequest[] = [];
  readonly summaries: ModelRequest[] = [];
  /** The largest estimate of a request to answer (not to summarize). */
  largest = 0;
  readonly #window: number;
  readonly #answer: (request: ModelRequest) => ModelChunk[] | undefined;

  constructor(window: number, answer: (request: ModelRequest) => ModelChunk[] | undefined = () => undefined) {
    this.#window = window;
    this.#answer = answer;
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelChunk> {
    const text = [request.system ?? '', ...request.messages.map((m) => m.content)].join('\n');
    if (request.system === SUMMARY_INSTRUCTIONS) {
      this.summaries.push(request);
      yield { type: 'text-delta', delta: [...new Set(text.match(FACT) ?? [])].join('\n') };
      yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 5 } };
      return;
    }
    this.requests.push({ ...request, messages: structuredClone(request.messages) });
    const tokens = estimateTokens(text) + request.messages.length * 4;
    this.largest = Math.max(this.largest, tokens);
    if (tokens > this.#window)
      throw new Error(`fake: request of ${tokens} tokens is over the window of ${this.#window}`);
    const scripted = this.#answer(request);
    if (scripted) {
      yield* scripted;
      return;
    }
    const last = request.messages.at(-1)?.content ?? '';
    const asked = /what is ([a-z0-9_]+)\?/.exec(last)?.[1];
    const found = asked && new RegExp(`fact: ${asked} = ([a-z0-9]+)`).exec(text)?.[1];
    yield { type: 'text-delta', delta: asked ? `${asked} is ${found ?? 'unknown'}` : 'noted' };
    yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: tokens, outputTokens: 2 } };
  }
}

/** About `chars` characters of filler that no summary keeps. */
export function filler(chars: number, seed: number): string {
  return `lorem ${seed} `.repeat(Math.ceil(chars / 8)).slice(0, chars);
}
