/**
 * The price of a fallback chain on an answer that does not fail: every model is called through
 * one (a chain of one at least), which passes each chunk on and keeps the text sent for a retry.
 * An answer of 200 text deltas through a chain of two; baseline: the same model called directly.
 * The ratio against an instant model is low (each chunk passes one more async generator step);
 * what matters is the time added per chunk. Target: under 2 µs per chunk, nothing beside a real
 * provider's chunks, which come over a socket (measured here: about 0.4 µs).
 */
import { fallbackModel, type LanguageModel, type ModelChunk, type ModelRequest } from '../core/index.ts';
import { opsPerSecond, report } from './measure.ts';

const DELTAS = 200;

const instant: LanguageModel = {
  provider: 'bench',
  modelId: 'instant',
  async *stream(): AsyncGenerator<ModelChunk> {
    for (let i = 0; i < DELTAS; i++) yield { type: 'text-delta', delta: 'word ' };
    yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: DELTAS } };
  },
};

const request: ModelRequest = {
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  signal: new AbortController().signal,
};

async function drain(model: LanguageModel): Promise<void> {
  for await (const _ of model.stream(request));
}

const chain = fallbackModel([instant, instant]);
const chained = await opsPerSecond(() => drain(chain));
const direct = await opsPerSecond(() => drain(instant));
report(
  `an answer of ${DELTAS} deltas through a fallback chain`,
  chained,
  direct,
  'the model called directly',
);
const addedMicros = (1e6 / chained - 1e6 / direct) / (DELTAS + 1);
console.log(`  the chain adds ${addedMicros.toFixed(2)} µs per chunk (target: under 2 µs)`);
