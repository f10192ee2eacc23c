import { DEFAULT_MAX_STEPS } from '../../core/index.ts';
import { SUBAGENT_TYPE_SCHEMA, type SubagentType, TYPE_NAME_PATTERN } from './subagent-type.ts';

/** The `task` config key: the limits of delegated work, and whether clients see it live. */
export interface TaskOptions {
  /**
   * How deep sub-agents may nest (default 1: agents delegate, sub-agents cannot). With 2, a
   * sub-agent may start sub-agents of its own, which cannot.
   */
  maxDepth?: number;
  /** Each task is cancelled after this long (ms), and reported as timed out. Default 300000 (5 min). */
  timeoutMs?: number;
  /** Model calls per task for types that set no `maxSteps`. Default 25. */
  maxSteps?: number;
  /** The sub-agent's answer is cut here (characters), with a marker saying so. Default 10000. */
  maxAnswerChars?: number;
  /**
   * Forward each sub-agent's events into the calling run's stream, as `tool-progress` events of the
   * `task` call (`data: { taskId, subagentType, agent, event }`). Default false: approval requests
   * are forwarded either way, so someone can answer them.
   */
  forwardEvents?: boolean;
}

/** The `subagent()` plugin's options: the `task` limits and more types; they win over the config's. */
export interface SubagentOptions extends TaskOptions {
  /** Sub-agent types, beside (and over) the config's `subagents`. */
  types?: Record<string, SubagentType>;
}

export type TaskLimits = Required<TaskOptions>;

export const DEFAULT_TASK_LIMITS: TaskLimits = {
  maxDepth: 1,
  timeoutMs: 300_000,
  maxSteps: DEFAULT_MAX_STEPS,
  maxAnswerChars: 10_000,
  forwardEvents: false,
};

/** The limits in force: the plugin's options over the config's `task` over the defaults. */
export function resolveLimits(config: TaskOptions | undefined, options: TaskOptions): TaskLimits {
  const pick = <K extends keyof TaskOptions>(key: K): TaskLimits[K] =>
    (options[key] ?? config?.[key] ?? DEFAULT_TASK_LIMITS[key]) as TaskLimits[K];
  return {
    maxDepth: pick('maxDepth'),
    timeoutMs: pick('timeoutMs'),
    maxSteps: pick('maxSteps'),
    maxAnswerChars: pick('maxAnswerChars'),
    forwardEvents: pick('forwardEvents'),
  };
}

export const TASK_CONFIG_SCHEMA = {
  type: 'object',
  description: 'The `task` tool (sub-agents): limits, and event forwarding.',
  properties: {
    maxDepth: {
      type: 'integer',
      minimum: 1,
      maximum: 10,
      description: 'How deep sub-agents may nest (default 1: sub-agents cannot delegate).',
    },
    timeoutMs: { type: 'integer', minimum: 1, description: 'Per-task timeout in ms (default 300000).' },
    maxSteps: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      description: 'Model calls per task when its type sets none (default 25).',
    },
    maxAnswerChars: {
      type: 'integer',
      minimum: 100,
      description: "Cap on the sub-agent's answer, in characters (default 10000).",
    },
    forwardEvents: {
      type: 'boolean',
      description: "Forward sub-agents' events into the calling run's stream (default false).",
    },
  },
  additionalProperties: false,
} as const;

export const SUBAGENTS_CONFIG_SCHEMA = {
  type: 'object',
  description: 'Sub-agent types for the `task` tool, by name (general-purpose is built in).',
  propertyNames: { pattern: TYPE_NAME_PATTERN },
  additionalProperties: SUBAGENT_TYPE_SCHEMA,
} as const;
