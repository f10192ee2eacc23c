/**
 * The cold-start bench's model: a local OpenAI Chat Completions server (streamed or not, as the
 * request asks) that answers every conversation the same way: a tool call `echo {text:'tick'}`,
 * then, once the request carries a tool message, the text `done`. It counts the calls it answers.
 * With `delayMs`, each answer comes that long after its request (a model that takes its time).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ChatBody {
  model?: string;
  stream?: boolean;
  messages?: { role: string; content?: unknown }[];
}

export interface FakeOpenAI {
  /** Base URL, `http://127.0.0.1:<port>/v1`. */
  url: string;
  /** Calls answered so far; `second` counts those that carried a tool message with `tick`. */
  calls: { total: number; first: number; second: number; streamed: number };
  reset(): void;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<ChatBody> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text) as ChatBody;
}

export async function startFakeOpenAI(options: { delayMs?: number } = {}): Promise<FakeOpenAI> {
  const delayMs = options.delayMs ?? 0;
  const calls = { total: 0, first: 0, second: 0, streamed: 0 };
  let seq = 0;
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end('{}');
      return;
    }
    const body = await readJson(req);
    calls.total++;
    if (body.stream) calls.streamed++;
    const tool = (body.messages ?? []).filter((m) => m.role === 'tool');
    const text = tool.length > 0 ? 'done' : null;
    if (text) {
      if (tool.some((m) => JSON.stringify(m.content).includes('tick'))) calls.second++;
    } else calls.first++;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const toolCalls = text
      ? []
      : [{ id: `call_${++seq}`, type: 'function', function: { name: 'echo', arguments: '{"text":"tick"}' } }];
    const finish = text ? 'stop' : 'tool_calls';
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    const model = body.model ?? 'fake';
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model };
      const send = (o: object) => res.write(`data: ${JSON.stringify({ ...base, ...o })}\n\n`);
      send({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
      if (text) send({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });
      for (const [index, call] of toolCalls.entries())
        send({ choices: [{ index: 0, delta: { tool_calls: [{ index, ...call }] }, finish_reason: null }] });
      send({ choices: [{ index: 0, delta: {}, finish_reason: finish }] });
      send({ choices: [], usage });
      res.end('data: [DONE]\n\n');
    } else {
      const message = {
        role: 'assistant',
        content: text,
        ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model,
          choices: [{ index: 0, message, finish_reason: finish }],
          usage,
        }),
      );
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    reset() {
      calls.total = calls.first = calls.second = calls.streamed = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
