import type { Message, Usage } from '../agent/messages.ts';
import { addUsage, emptyUsage } from '../agent/messages.ts';
import type { LanguageModel } from '../model/model.ts';
import { estimateTokens } from '../model/tokens.ts';

/** What the summarizing model is told: keep what the conversation cannot do without. */
export const SUMMARY_INSTRUCTIONS = [
  'You compress the earlier part of a conversation between a user and an AI agent, so the agent can go on without it.',
  'Write a summary that keeps, as short lines:',
  '- every decision taken and why, and what the user asked for and prefers;',
  '- the tasks still open and what was about to happen next;',
  '- every fact that tools returned or the user gave (names, numbers, ids, paths, results), word for word; keep lines that start with "fact:" exactly as they are.',
  'Drop greetings, repetition and reasoning that led nowhere. When a previous summary is given, merge it: keep what it holds unless a later message changed it.',
  'Answer with the summary only.',
].join('\n');

/** Characters a token of a summary holds at most, about (English averages about four). */
const MAX_CHARS_PER_TOKEN = 6;

/** What a summary is made from, and by what. */
export interface SummarizeInput {
  model: LanguageModel;
  previous: string | undefined;
  messages: readonly Message[];
  /** Tokens one summarizing request may hold (its transcript, estimated). */
  budget: number;
  /** The longest summary, in tokens: the summary must leave room for the turns after it. */
  maxTokens: number;
  signal: AbortSignal;
}

/**
 * Summarizes `messages` (after `previous`) with `model`: in parts when the transcript is longer
 * than `budget`, each part's summary carried into the next, so a conversation of any length can be
 * summarized by a model with a bounded window. The summary is undefined when the model answered
 * nothing where it had a summary to merge (a filter, a cut answer): that summary would be lost.
 * ('' for messages with nothing worth keeping is a summary.)
 */
export async function summarize(
  input: SummarizeInput,
): Promise<{ summary: string | undefined; usage: Usage }> {
  const budget = Math.max(256, input.budget);
  // A single message longer than a part is cut: its beginning is what a summary can use.
  const maxChars = Math.floor(budget * 3.5 * 0.6);
  let summary = input.previous;
  let usage = emptyUsage();
  let part: string[] = [];
  let size = 0;
  let empty = false;
  const flush = async () => {
    if (part.length === 0 || empty) return;
    const answer = await askSummary(input.model, summary, part.join('\n'), input.signal, input.maxTokens);
    usage = addUsage(usage, answer.usage);
    // Nothing back where a summary was given to merge: that summary would be lost.
    if (answer.text === '' && summary) empty = true;
    summary = answer.text;
    part = [];
    size = 0;
  };
  for (const message of input.messages) {
    if (empty) break;
    const line = lineOf(message, maxChars);
    const tokens = estimateTokens(line) + estimateTokens(summary ?? '');
    if (size > 0 && size + tokens > budget) await flush();
    part.push(line);
    size += estimateTokens(line);
  }
  await flush();
  return { summary: empty ? undefined : (summary ?? ''), usage };
}

async function askSummary(
  model: LanguageModel,
  previous: string | undefined,
  transcript: string,
  signal: AbortSignal,
  maxTokens: number,
): Promise<{ text: string; usage: Partial<Usage> | undefined }> {
  const content = `${previous ? `Previous summary:\n${previous}\n\n` : ''}Conversation to summarize:\n${transcript}`;
  // A model that ignores maxTokens (a server that does not enforce it, one streaming garbage) is
  // read no further than a summary of maxTokens can be long: a longer one would crowd out every
  // later request of the session.
  const most = maxTokens * MAX_CHARS_PER_TOKEN;
  let text = '';
  let usage: Partial<Usage> | undefined;
  for await (const chunk of model.stream({
    system: SUMMARY_INSTRUCTIONS,
    messages: [{ role: 'user', content }],
    tools: [],
    signal,
    temperature: 0,
    maxTokens,
    stream: false,
  })) {
    if (chunk.type === 'text-delta') text += chunk.delta;
    else if (chunk.type === 'finish') usage = chunk.usage;
    if (text.length > most) {
      text = text.slice(0, most);
      break;
    }
  }
  return { text: text.trim(), usage };
}

/** A message as one line of the transcript the summarizer reads. */
function lineOf(message: Message, maxChars: number): string {
  const cut = (text: string) => (text.length > maxChars ? `${text.slice(0, maxChars)} […]` : text);
  if (message.role === 'tool') return cut(`tool ${message.name} returned: ${message.content}`);
  if (message.role === 'user') return cut(`user: ${message.content}`);
  const calls = (message.toolCalls ?? []).map(
    (call) => ` [called ${call.name} ${JSON.stringify(call.input ?? {})}]`,
  );
  return cut(`assistant: ${message.content}${calls.join('')}`);
}
