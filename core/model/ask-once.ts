import type { LanguageModel } from './model.ts';

/** One question to a model that answers in JSON (a judge, a classifier). */
export interface AskOnce {
  system: string;
  content: string;
  signal: AbortSignal;
  maxTokens?: number;
  /** Reading stops once the answer is longer than this: a runaway answer is not read whole. */
  maxChars?: number;
}

/** Asks `model` once, not streamed, at temperature 0, without tools; resolves with the answer's text. */
export async function askOnce(model: LanguageModel, ask: AskOnce): Promise<string> {
  let text = '';
  for await (const chunk of model.stream({
    system: ask.system,
    messages: [{ role: 'user', content: ask.content }],
    tools: [],
    signal: ask.signal,
    temperature: 0,
    ...(ask.maxTokens !== undefined ? { maxTokens: ask.maxTokens } : {}),
    stream: false,
  })) {
    if (chunk.type !== 'text-delta') continue;
    text += chunk.delta;
    if (ask.maxChars !== undefined && text.length > ask.maxChars) break;
  }
  return text;
}

/** The JSON object of a model's answer, alone, in a ```json fence or with words around it; undefined for none. */
export function jsonObjectIn(answer: string): Record<string, unknown> | undefined {
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start === -1 || end <= start) return undefined;
  try {
    const value: unknown = JSON.parse(answer.slice(start, end + 1));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
