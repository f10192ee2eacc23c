import type { ModelObject } from '../../core/index.ts';

/** A kind of sub-agent the `task` tool can start: config `subagents.<type>`, or a plugin's. */
export interface SubagentType {
  /** What it is for and when to pick it: the model reads it in the `task` tool's description. */
  description: string;
  /** Its system prompt (default: a short brief on working alone and answering in full). */
  instructions?: string;
  /** Registered tool names or globs; none when omitted. `task` only while nesting is allowed. */
  tools?: string[];
  /** A model reference (`'openai:gpt-4.1-mini'`) or a model object (a LanguageModel, an AI SDK model); default: the calling agent's model. */
  model?: string | ModelObject;
  /** Model calls per task (default: `task.maxSteps`, 25). */
  maxSteps?: number;
}

/** The built-in type: the caller's tools (without `task` unless nesting is allowed) and its model. */
export const GENERAL_PURPOSE = 'general-purpose';

export const GENERAL_PURPOSE_DESCRIPTION =
  'A capable agent with your own tools and model (not this conversation): for research, ' +
  'multi-step searches and self-contained jobs of any kind.';

/** The system prompt of sub-agents whose type gives none. */
export const DEFAULT_INSTRUCTIONS = [
  'You are a sub-agent: another agent delegated the task below to you.',
  'It sees only your final answer, not your steps, and no one will answer questions: work on the task alone with your tools.',
  'When done, reply with a final answer that stands on its own: the result, the facts it rests on (file paths, URLs, figures), and anything you could not do and why. Be concise.',
].join('\n');

export const TYPE_NAME_PATTERN = '^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$';

/** JSON Schema of one sub-agent type (config `subagents.<type>`, and what plugins register). */
export const SUBAGENT_TYPE_SCHEMA = {
  type: 'object',
  properties: {
    description: { type: 'string', minLength: 1, description: 'What it is for: the model reads it.' },
    instructions: { type: 'string', description: 'Its system prompt.' },
    tools: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description: 'Registered tool names or globs; none when omitted.',
    },
    model: {
      anyOf: [{ type: 'string', minLength: 1 }, { type: 'object' }],
      description: "A model reference, e.g. 'openai:gpt-4.1-mini'; default: the calling agent's.",
    },
    maxSteps: { type: 'integer', minimum: 1, maximum: 1000, description: 'Model calls per task.' },
  },
  required: ['description'],
  additionalProperties: false,
} as const;
