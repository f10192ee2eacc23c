import { errorMessage, HubosError, type Plugin } from '../../core/index.ts';
import { parseModelRef, selectTools } from '../../core/internal.ts';
import { getSubagentHooks } from './hooks.ts';
import {
  resolveLimits,
  SUBAGENTS_CONFIG_SCHEMA,
  type SubagentOptions,
  TASK_CONFIG_SCHEMA,
  type TaskLimits,
  type TaskOptions,
} from './options.ts';
import type { SubagentType } from './subagent-type.ts';
import { SubagentTypes } from './subagent-types.ts';
import { createTaskTool, TASK_TOOL } from './task-tool.ts';

export { capAnswer } from './answer.ts';
export { getSubagentHooks, type SubagentHooks } from './hooks.ts';
export { DEFAULT_TASK_LIMITS, type SubagentOptions, type TaskLimits, type TaskOptions } from './options.ts';
export type { ForwardedEvent, TaskSummary } from './run-task.ts';
export {
  DEFAULT_INSTRUCTIONS,
  GENERAL_PURPOSE,
  SUBAGENT_TYPE_SCHEMA,
  type SubagentType,
} from './subagent-type.ts';
export { type ResolvedSubagentType, SubagentTypes } from './subagent-types.ts';
export { TASK_TOOL, type TaskInput } from './task-tool.ts';

declare module 'hubos' {
  interface HubosConfig {
    /** Sub-agent types for the `task` tool, by name (`general-purpose` is built in). */
    subagents?: Record<string, SubagentType>;
    /** The `task` tool's limits (nesting depth, timeout, steps, answer length) and event forwarding. */
    task?: TaskOptions;
  }
}

/**
 * The `subagent` plugin: registers the `task` tool, through which an agent that selects it
 * delegates self-contained subtasks to sub-agents: each in an empty context, several at once,
 * each destroyed when done, the caller getting only the answer, status and usage. Types come from
 * config `subagents`, plugins (`getSubagentHooks(kernel).registerTypes`) and the options; limits
 * from config `task` and the options (which win).
 */
export default function subagent(options: SubagentOptions = {}): Plugin {
  return {
    name: 'subagent',
    configSchema: { subagents: SUBAGENTS_CONFIG_SCHEMA, task: TASK_CONFIG_SCHEMA },
    apply(kernel) {
      const hooks = getSubagentHooks.owned(kernel);
      const depths = new Map<string, number>();
      const types = new SubagentTypes();
      let limits: TaskLimits | undefined;

      kernel.hooks.registerTools.tapPromise('subagent', async (registry) => {
        limits = resolveLimits(kernel.config.task, options);
        await hooks.registerTypes.promise(types);
        for (const [name, type] of Object.entries({ ...kernel.config.subagents, ...options.types }))
          types.override(name, type);
        types.addBuiltIn();
        registry.register(createTaskTool({ kernel, types, limits, depths }));
      });

      // A sub-agent as deep as nesting goes never sees `task`, whatever its tool patterns select.
      kernel.hooks.resolveTools.tap('subagent', (context) => {
        const depth = depths.get(context.agent.name);
        if (depth === undefined || !limits || depth < limits.maxDepth) return context;
        return { ...context, tools: context.tools.filter((tool) => tool.name !== TASK_TOOL) };
      });

      // Typos in a type's tools or model fail startup, not the first task.
      kernel.hooks.ready.tap('subagent', () => {
        for (const type of types.list()) {
          try {
            if (type.tools)
              selectTools(type.name, type.tools, kernel.registry.list(), {
                reserved: kernel.registry.reservations(),
              });
            if (typeof type.model === 'string') kernel.models.get(parseModelRef(type.model).provider);
          } catch (error) {
            throw new HubosError(
              HubosError.is(error) ? error.code : 'AGENT_INVALID',
              `sub-agent type "${type.name}": ${errorMessage(error).replace(/^agent "[^"]*": /, '')}`,
              { cause: error, details: { subagentType: type.name } },
            );
          }
        }
      });
    },
  };
}
