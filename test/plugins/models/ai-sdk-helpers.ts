import type { LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import type { ModelRequest } from '../../../core/index.ts';

/** v3 usage with these totals. */
export const usage = (input: number, output: number): LanguageModelV3Usage => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

export const finish = (
  unified: 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other' = 'stop',
  tokens = usage(10, 4),
): LanguageModelV3StreamPart => ({ type: 'finish', finishReason: { unified, raw: unified }, usage: tokens });

/** The parts of a streamed text answer. */
export const text = (...deltas: string[]): LanguageModelV3StreamPart[] => [
  { type: 'text-start', id: 't' },
  ...deltas.map((delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 't', delta })),
  { type: 'text-end', id: 't' },
];

/** The parts of one streamed tool call: start, the input in two pieces, end, then the whole call. */
export const toolCall = (id: string, toolName: string, input: string): LanguageModelV3StreamPart[] => [
  { type: 'tool-input-start', id, toolName },
  { type: 'tool-input-delta', id, delta: input.slice(0, 3) },
  { type: 'tool-input-delta', id, delta: input.slice(3) },
  { type: 'tool-input-end', id },
  { type: 'tool-call', toolCallId: id, toolName, input },
];

/** The AI SDK's own mock model, answering each call with the next list of stream parts. */
export function mockModel(...turns: LanguageModelV3StreamPart[][]): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    provider: 'mock.chat',
    modelId: 'mock-1',
    doStream: turns.map((parts) => ({
      stream: convertArrayToReadableStream([{ type: 'stream-start', warnings: [] }, ...parts]),
    })),
  });
}

export const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  signal: new AbortController().signal,
  ...overrides,
});
