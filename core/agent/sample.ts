import { type LanguageModel, modelRefOf } from '../model/model.ts';
import { contentToText } from '../tools/content.ts';
import type { SampleRequest, SampleResult } from '../tools/interaction.ts';
import type { Message, Usage } from './messages.ts';

/**
 * Answers a sampling request with a model: the messages as a conversation (parts other than text
 * in words, as providers' chat APIs take text), no tools. Resolves with the text and the tokens spent.
 */
export async function sampleModel(
  model: LanguageModel,
  request: SampleRequest,
  signal: AbortSignal,
): Promise<{ result: SampleResult; usage: Partial<Usage> }> {
  const messages: Message[] = request.messages.map((message) => ({
    role: message.role,
    content: typeof message.content === 'string' ? message.content : contentToText([message.content]),
  }));
  let text = '';
  let usage: Partial<Usage> = {};
  let stopReason: string | undefined;
  for await (const chunk of model.stream({
    ...(request.system ? { system: request.system } : {}),
    messages,
    tools: [],
    signal,
    maxTokens: request.maxTokens,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
  })) {
    if (chunk.type === 'text-delta') text += chunk.delta;
    if (chunk.type === 'finish') {
      usage = chunk.usage ?? {};
      stopReason =
        chunk.finishReason === 'stop'
          ? 'endTurn'
          : chunk.finishReason === 'length'
            ? 'maxTokens'
            : chunk.finishReason;
    }
  }
  return { result: { text, model: modelRefOf(model), ...(stopReason ? { stopReason } : {}) }, usage };
}
