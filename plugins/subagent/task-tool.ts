import type { KernelView, Tool } from '../../core/index.ts';
import { didYouMean } from '../../core/internal.ts';
import type { TaskLimits } from './options.ts';
import { runTask, type TaskSummary } from './run-task.ts';
import type { SubagentTypes } from './subagent-types.ts';
import { describeTaskTool } from './task-description.ts';

export const TASK_TOOL = 'task';

export interface TaskInput {
  description: string;
  subagent_type: string;
}

export interface TaskToolDeps {
  kernel: KernelView;
  types: SubagentTypes;
  limits: TaskLimits;
  /** The nesting depth of each live sub-agent, by id (agents not in it are at depth 0). */
  depths: Map<string, number>;
}

/**
 * The `task` tool: its schema lists the types as an enum, its description says what each is for.
 * The handler checks the caller may delegate (depth) and the type exists, then runs the task.
 */
export function createTaskTool({
  kernel,
  types,
  limits,
  depths,
}: TaskToolDeps): Tool<TaskInput, TaskSummary> {
  const names = types.names();
  let seq = 0;
  const uniqueName = (parent: string, type: string) => {
    let name: string;
    do name = `${parent}.${type}.${++seq}`;
    while (depths.has(name) || kernel.getAgent(name));
    return name;
  };
  return {
    name: TASK_TOOL,
    description: describeTaskTool(types.list(), limits),
    inputSchema: {
      type: 'object',
      properties: {
        description: {
          type: 'string',
          pattern: '\\S',
          description:
            'The full task, self-contained: the sub-agent sees nothing else (not this conversation). Say what to do, with what, and what to report back.',
        },
        subagent_type: {
          type: 'string',
          enum: names,
          description: 'Which kind of sub-agent does it (see the list in the tool description).',
        },
      },
      required: ['description', 'subagent_type'],
      additionalProperties: false,
    },
    async handler({ signal }, tc) {
      const parent = kernel.getAgent(tc.agentId);
      if (!parent) {
        throw new Error(
          `"${TASK_TOOL}" delegates for an agent of this kernel; there is no agent "${tc.agentId}"`,
        );
      }
      const depth = depths.get(parent.id) ?? 0;
      if (depth >= limits.maxDepth) {
        throw new Error(
          `sub-agents cannot delegate further: "${parent.id}" is a sub-agent at depth ${depth} and the limit is ${limits.maxDepth} (task.maxDepth). Do the task yourself.`,
        );
      }
      const type = types.get(tc.input.subagent_type);
      if (!type) {
        throw new Error(
          `unknown subagent_type "${tc.input.subagent_type}"${didYouMean(String(tc.input.subagent_type), names)}: use one of ${names.map((n) => `"${n}"`).join(', ')}`,
        );
      }
      const name = uniqueName(parent.id, type.name);
      depths.set(name, depth + 1);
      try {
        return await runTask({
          kernel,
          parent,
          type,
          description: tc.input.description,
          name,
          depth: depth + 1,
          limits,
          signal,
          taskId: tc.callId ?? name,
          ...(tc.runId !== undefined ? { caller: { runId: tc.runId, callId: tc.callId } } : {}),
          principal: tc.principal,
          addUsage: tc.addUsage,
          progress: tc.progress,
          elicit: tc.elicit,
          sample: tc.sample,
        });
      } finally {
        depths.delete(name);
      }
    },
  };
}
