import type { ServerResponse } from 'node:http';
import { SUMMARY_INSTRUCTIONS } from '../../core/context/summarize.ts';
import {
  type FakeServer,
  type Received,
  sendEvent,
  sendJSON,
  sseHead,
  startServer,
} from '../plugins/models/server.ts';

/** One answer of the fake: text, or tool calls. */
export type FakeAnswer = { text: string } | { calls: { id: string; name: string; args: object }[] };

/** What the fake saw: requests refused as too long, the longest one (its tokens), summarizing requests. */
export interface FakeStats {
  refused: number;
  largest: number;
  summaries: number;
}

/** `fact: <name> = <value>` lines: what a summary keeps. */
const FACT = /fact: [a-z0-9_]+ = [a-z0-9]+/g;

/** The text of an OpenAI request, all of it: messages (tool calls too) and tools. */
function textOf(body: Received['body']): string {
  const parts: string[] = [];
  for (const message of body.messages ?? []) {
    if (typeof message.content === 'string') parts.push(message.content);
    else if (Array.isArray(message.content)) for (const part of message.content) parts.push(part.text ?? '');
    for (const call of message.tool_calls ?? []) parts.push(call.function.name, call.function.arguments);
  }
  if (body.tools) parts.push(JSON.stringify(body.tools));
  return parts.join('\n');
}

/**
 * An OpenAI Chat Completions server with a small context window: a request over it is refused as
 * OpenAI refuses one (400, `context_length_exceeded`). Summarizing requests get the `fact:` lines
 * they hold; others what `answer` says.
 */
export async function fakeOpenAI(
  window: number,
  answer: (body: Received['body'], text: string) => FakeAnswer,
): Promise<FakeServer & { stats: FakeStats }> {
  const stats: FakeStats = { refused: 0, largest: 0, summaries: 0 };
  const server = await startServer((request, res) => {
    const body = request.body;
    const text = textOf(body);
    // About 4 characters a token, as OpenAI's tokenizers count English.
    const tokens = Math.ceil(text.length / 4) + (body.messages?.length ?? 0) * 4;
    stats.largest = Math.max(stats.largest, tokens);
    if (tokens > window) {
      stats.refused++;
      sendJSON(res, 400, {
        error: {
          message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      });
      return;
    }
    const summarizing = body.messages?.[0]?.content === SUMMARY_INSTRUCTIONS;
    if (summarizing) stats.summaries++;
    const reply: FakeAnswer = summarizing
      ? { text: [...new Set(text.match(FACT) ?? [])].join('\n') }
      : answer(body, text);
    respond(res, body.stream === true, reply, tokens);
  });
  return Object.assign(server, { stats });
}

function respond(res: ServerResponse, stream: boolean, reply: FakeAnswer, tokens: number): void {
  const usage = { prompt_tokens: tokens, completion_tokens: 3, total_tokens: tokens + 3 };
  const toolCalls =
    'calls' in reply
      ? reply.calls.map((call, index) => ({
          index,
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.args) },
        }))
      : undefined;
  const finish = toolCalls ? 'tool_calls' : 'stop';
  if (!stream) {
    sendJSON(res, 200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'text' in reply ? reply.text : null, tool_calls: toolCalls },
          finish_reason: finish,
        },
      ],
      usage,
    });
    return;
  }
  sseHead(res);
  const chunk = (delta: object, finish_reason: string | null = null) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason }],
  });
  if ('text' in reply) sendEvent(res, chunk({ role: 'assistant', content: reply.text }));
  else sendEvent(res, chunk({ role: 'assistant', tool_calls: toolCalls }));
  sendEvent(res, chunk({}, finish));
  sendEvent(res, { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [], usage });
  sendEvent(res, '[DONE]');
  res.end();
}
