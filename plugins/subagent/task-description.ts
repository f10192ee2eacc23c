import type { TaskLimits } from './options.ts';
import type { ResolvedSubagentType } from './subagent-types.ts';

/**
 * What the model reads about the `task` tool: what a sub-agent sees and returns, when delegating
 * pays and when it does not, the limits, and each type with what it is for.
 */
export function describeTaskTool(types: readonly ResolvedSubagentType[], limits: TaskLimits): string {
  const seconds = Math.round(limits.timeoutMs / 1000);
  return [
    'Delegates a task to a sub-agent that works on it alone and returns only its final answer (with its status and token usage), not its intermediate steps.',
    'The sub-agent starts with an empty context: it sees only `description`, never this conversation, so write the whole task there: the goal, the facts, names and paths it needs, and what to report back.',
    'Worth it for: independent subtasks that can run at the same time (call `task` several times in one turn: they run in parallel), and broad searches or long reads whose details you do not need to keep (they stay out of your context).',
    'Not worth it for: a quick step you can do with one or two tool calls yourself, work that needs this conversation, or steps that depend on one another (do those in order, or yourself).',
    `Limits: each task gets at most ${limits.maxSteps} model calls (unless its type says otherwise) and ${seconds} s; its answer is cut at ${limits.maxAnswerChars} characters. A task that fails or times out returns an error for that call only.`,
    'subagent_type, one of:',
    ...types.map((type) => `- ${type.name}: ${type.description}`),
  ].join('\n');
}
