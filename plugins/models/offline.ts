import type {
  LanguageModel,
  Message,
  ModelChunk,
  ModelRequest,
  Plugin,
  ToolDefinition,
} from '../../core/index.ts';
import { didYouMean } from '../../core/internal.ts';
import { exampleFor } from './schema-example.ts';

export const OFFLINE_HELP =
  'To use a real model, set OPENAI_API_KEY or ANTHROPIC_API_KEY, or set "model" in agent.config.ts ' +
  "(e.g. 'openai:gpt-4.1-mini', or an OpenAI-compatible server with openai.baseURL).";

/**
 * A deterministic demo model for running with no API key. It understands no language: a message
 * `/tool_name {"json": "input"}` makes it call that tool, a tool result is echoed back, and anything
 * else gets an answer saying what it is and how to configure a real model.
 */
export class OfflineModel implements LanguageModel {
  readonly provider = 'offline';
  readonly modelId = '';

  async *stream(request: ModelRequest): AsyncGenerator<ModelChunk> {
    const last = request.messages.at(-1);
    const usage = { inputTokens: estimateTokens(request.messages), outputTokens: 0 };
    const reply = (text: string): ModelChunk[] => [
      { type: 'text-delta', delta: text },
      { type: 'finish', finishReason: 'stop', usage: { ...usage, outputTokens: Math.ceil(text.length / 4) } },
    ];
    if (last?.role === 'tool') {
      const results = trailingToolResults(request.messages);
      yield* reply(
        results.map((m) => `${m.name} ${m.isError ? 'failed' : 'returned'}: ${m.content}`).join('\n'),
      );
      return;
    }
    const command = last?.role === 'user' ? findCommand(last.content) : null;
    const available = request.tools.map((tool) => tool.name);
    if (!command) {
      const tools =
        request.tools.length > 0
          ? ` Type / then a tool's name and its input as JSON to call it, e.g.:\n${request.tools.map((tool) => `  ${exampleCall(tool)}`).join('\n')}\n`
          : ' This agent has no tools: give it some with "tools" in agent.config.ts.';
      yield* reply(
        `I am the offline demo model: I do not understand language, I only call tools.${tools}${tools.endsWith('\n') ? '' : ' '}${OFFLINE_HELP}`,
      );
      return;
    }
    const [, name, json] = command as unknown as [string, string, string | undefined];
    const tool = request.tools.find((candidate) => candidate.name === name);
    if (!tool) {
      const near = didYouMean(name, available, (found) => `/${found}`);
      yield* reply(`There is no tool "${name}" here${near}. Available: ${available.join(', ') || 'none'}.`);
      return;
    }
    let input: unknown = {};
    try {
      input = json?.trim() ? JSON.parse(json) : {};
    } catch {
      yield* reply(`The input after /${name} must be JSON, e.g. ${exampleCall(tool)}`);
      return;
    }
    const id = `offline_${request.messages.length}`;
    yield { type: 'tool-call-start', id, name };
    yield { type: 'tool-call', id, name, input };
    yield { type: 'finish', finishReason: 'tool-calls', usage };
  }
}

/** `/name {"input": …}`: a call that the tool's input schema accepts, to type as it is. */
export function exampleCall(tool: Pick<ToolDefinition, 'name' | 'inputSchema'>): string {
  return `/${tool.name} ${JSON.stringify(exampleFor(tool.inputSchema))}`;
}

/**
 * The `/tool {json}` command of a message: the whole message, or else its last line that is one
 * (a message may carry context above the command, as a Stars roster does).
 */
function findCommand(content: string): RegExpExecArray | null {
  const pattern = /^\/([a-zA-Z0-9_-]{1,64})(?:\s+([\s\S]*))?$/;
  const whole = pattern.exec(content.trim());
  if (whole) return whole;
  const lines = content
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('/'));
  for (const line of lines.reverse()) {
    const match = pattern.exec(line);
    if (match) return match;
  }
  return null;
}

function trailingToolResults(messages: Message[]): Extract<Message, { role: 'tool' }>[] {
  const results: Extract<Message, { role: 'tool' }>[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) {
    results.unshift(messages[i] as Extract<Message, { role: 'tool' }>);
  }
  return results;
}

function estimateTokens(messages: Message[]): number {
  return Math.ceil(messages.reduce((sum, message) => sum + message.content.length, 0) / 4);
}

/** Registers the `offline` provider: `model: 'offline'`. */
export default function offline(): Plugin {
  const model = new OfflineModel();
  return {
    name: 'offline',
    apply(kernel) {
      kernel.hooks.registerModels.tap('offline', (models) => {
        models.register({
          id: 'offline',
          description: 'deterministic demo model, no API key',
          languageModel: () => model,
        });
      });
    },
  };
}
