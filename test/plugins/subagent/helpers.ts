import { afterEach } from 'vitest';
import type {
  AgentTemplate,
  HubosConfig,
  Kernel,
  Message,
  ModelRequest,
  Plugin,
  Tool,
  ToolCallRecord,
} from '../../../core/index.ts';
import subagent, { type SubagentOptions } from '../../../plugins/subagent/index.ts';
import { bootKernel, ScriptedModel, type ScriptedResponse, type ScriptStep } from '../../../testing/index.ts';
import { toolsPlugin } from '../../agent/helpers.ts';

export interface Setup {
  /** The lead agent's script (general-purpose sub-agents share its model, so their turns too). */
  script?: ScriptStep[];
  /** The lead agent's template; `tools` defaults to `task` plus the registered tools. */
  template?: AgentTemplate;
  tools?: Tool[];
  options?: SubagentOptions;
  config?: HubosConfig;
  plugins?: Plugin[];
}

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

/** Boots a kernel with the subagent plugin and a `lead` agent that may call `task`; closed after each test. */
export async function bootLead(setup: Setup = {}) {
  const model = new ScriptedModel(setup.script ?? []);
  const tools = setup.tools ?? [];
  const kernel = await bootKernel({
    config: {
      ...setup.config,
      agents: {
        lead: {
          model,
          instructions: 'You are the lead.',
          tools: ['task', ...tools.map((tool) => tool.name)],
          ...setup.template,
        },
      },
    },
    plugins: [
      subagent(setup.options),
      ...(tools.length > 0 ? [toolsPlugin(tools)] : []),
      ...(setup.plugins ?? []),
    ],
  });
  kernels.push(kernel);
  return { kernel, model, agent: kernel.agent('lead') };
}

/** A `task` call for a script. */
export const task = (description: string, subagent_type = 'general-purpose', id?: string) => ({
  name: 'task',
  input: { description, subagent_type },
  ...(id ? { id } : {}),
});

/** The task a sub-agent was given: the first (and, for an isolated sub-agent, only) user message. */
export const taskOf = (request: ModelRequest) => String(request.messages[0]?.content);

/**
 * A script step answering each sub-agent by its task: `byTask({ A: 'answer A', B: { error: 'boom' } })`.
 * Push it once per expected model call of the sub-agents.
 */
export const byTask =
  (answers: Record<string, ScriptedResponse | ((request: ModelRequest) => Promise<ScriptedResponse>)>) =>
  async (request: ModelRequest): Promise<ScriptedResponse> => {
    const answer = answers[taskOf(request)];
    if (answer === undefined) throw new Error(`no scripted answer for task ${taskOf(request)}`);
    return typeof answer === 'function' ? answer(request) : answer;
  };

export const toolMessages = (messages: Message[]) =>
  messages.filter((m): m is Extract<Message, { role: 'tool' }> => m.role === 'tool');

/** The `task` calls of a run, in call order. */
export const taskCalls = (calls: ToolCallRecord[]) => calls.filter((call) => call.name === 'task');
