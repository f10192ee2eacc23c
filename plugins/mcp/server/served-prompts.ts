import type { Agent, Prompt, PromptArgument } from '../../../core/index.ts';
import { askToolName, servedAgents } from './ask-agent.ts';
import type { ServeContext } from './serve-context.ts';
import { servedRegistryPrompts } from './served-resources.ts';

/** One prompt an MCP client sees: a registry prompt, or an agent offered as `ask_<agent>`. */
export type ServedPrompt =
  | { kind: 'prompt'; name: string; prompt: Prompt }
  | { kind: 'agent'; name: string; agent: Agent };

/**
 * What is offered as prompts right now, by name: the registry's prompts `serve.prompts` selects,
 * then one `ask_<agent>` prompt per agent of `serve.agents` this caller may use (a registry
 * prompt of the same name wins).
 */
export function servedPrompts(
  ctx: Pick<ServeContext, 'kernel' | 'serve' | 'mayUseAgent'>,
): Map<string, ServedPrompt> {
  const served = new Map<string, ServedPrompt>();
  for (const prompt of servedRegistryPrompts(ctx.kernel, ctx.serve))
    served.set(prompt.name, { kind: 'prompt', name: prompt.name, prompt });
  for (const agent of servedAgents(ctx.kernel, ctx.serve.agents)) {
    if (!ctx.mayUseAgent(agent)) continue;
    const name = askToolName(agent.id);
    if (!served.has(name)) served.set(name, { kind: 'agent', name, agent });
  }
  return served;
}

export const AGENT_PROMPT_ARGUMENTS: PromptArgument[] = [
  { name: 'message', description: 'What to ask or tell the agent.', required: true },
];

/** The description and arguments `prompts/list` shows. */
export function describePrompt(served: ServedPrompt): {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
} {
  if (served.kind === 'agent') {
    const about = served.agent.spec.description ? `: ${served.agent.spec.description}` : '';
    return {
      name: served.name,
      description: `Ask the agent "${served.agent.id}" (through the ${served.name} tool)${about}`,
      arguments: AGENT_PROMPT_ARGUMENTS,
    };
  }
  const { prompt } = served;
  return {
    name: prompt.name,
    ...(prompt.title !== undefined ? { title: prompt.title } : {}),
    ...(prompt.description !== undefined ? { description: prompt.description } : {}),
    ...(prompt.arguments ? { arguments: prompt.arguments.map(describeArgument) } : {}),
  };
}

function describeArgument(argument: PromptArgument): PromptArgument {
  return {
    name: argument.name,
    ...(argument.description !== undefined ? { description: argument.description } : {}),
    ...(argument.required !== undefined ? { required: argument.required } : {}),
  };
}
