import type { Kernel, LanguageModel, ModelRequest, Tool } from '../../core/index.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../testing/index.ts';

export const CAPITALS: Record<string, string> = {
  France: 'Paris',
  Italy: 'Rome',
  Spain: 'Madrid',
  Japan: 'Tokyo',
};

/** The capital tool: what the agent looks its answers up with, so a trajectory is a real tool call. */
export const capitalTool: Tool = {
  name: 'capital',
  description: "A country's capital.",
  inputSchema: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'] },
  handler: (_ctx, { input }) => {
    const country = (input as { country: string }).country;
    return { capital: CAPITALS[country] ?? 'unknown' };
  },
};

/** A model that answers each call afresh from `step(request)`: a ScriptedModel of one step per call, so concurrent runs share none. */
export function perCallModel(
  step: (request: ModelRequest) => ScriptStep,
  modelId = 'scripted',
): LanguageModel {
  return {
    provider: 'scripted',
    modelId,
    stream: (request: ModelRequest) => {
      const answer = step(request);
      return new ScriptedModel([answer], { modelId }).stream(request);
    },
  };
}

export const lastMessage = (request: ModelRequest) => request.messages[request.messages.length - 1];

/**
 * The geography agent's model: asked "capital of X?", it calls `capital` then answers
 * "The capital of X is Y."; a country named in `wrong` gets a wrong answer (for failing cases).
 */
export function geographyModel(options: { wrong?: string[]; delayMs?: number } = {}): LanguageModel {
  return perCallModel((request) => {
    const last = lastMessage(request);
    const delay = options.delayMs ? { delayMs: options.delayMs } : {};
    if (last?.role === 'tool') {
      const { capital } = JSON.parse(last.content) as { capital: string };
      const asked = [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
      const country = /capital of (\w+)/i.exec(asked)?.[1] ?? '?';
      const answer = options.wrong?.includes(country)
        ? 'I do not know.'
        : `The capital of ${country} is ${capital}.`;
      return { text: answer, usage: { inputTokens: 20, outputTokens: 8 }, ...delay };
    }
    const country = /capital of (\w+)/i.exec(last?.role === 'user' ? last.content : '')?.[1];
    if (!country)
      return {
        text: `You said: ${last?.content ?? ''}`,
        usage: { inputTokens: 10, outputTokens: 5 },
        ...delay,
      };
    return {
      toolCalls: [{ name: 'capital', input: { country } }],
      usage: { inputTokens: 10, outputTokens: 5 },
      ...delay,
    };
  });
}

/** A booted kernel (memory store) with the `geo` agent on `model` and the capital tool. */
export async function geographyKernel(
  model: LanguageModel = geographyModel(),
  config: Record<string, unknown> = {},
): Promise<Kernel> {
  return bootKernel({
    config: { ...config, agents: { geo: { model, tools: ['capital'] } } },
    plugins: [
      {
        name: 'geo-tools',
        apply(kernel) {
          kernel.hooks.registerTools.tap('geo-tools', (registry) => registry.register(capitalTool));
        },
      },
    ],
  });
}
