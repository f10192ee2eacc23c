import { CONTEXT_CONFIG_SCHEMA, type ContextConfig } from '../context/context-config.ts';
import type { GuardrailsConfig } from '../guardrails/guardrail.ts';
import { GUARDRAILS_CONFIG_SCHEMA } from '../guardrails/resolve-guardrails.ts';
import type { TapOnlyHooks } from '../hook-utils.ts';
import { AGENT_MEMORY_SCHEMA, type AgentMemoryConfig } from '../memory/memory-config.ts';
import type { ModelSetting } from '../model/model.ts';
import { MODEL_SETTING_SCHEMA } from '../model/model-setting.ts';
import { type PermissionsConfig, permissionsSchema } from '../permissions.ts';
import type { AgentHooks } from './agent-hooks.ts';
import { BUDGET_SCHEMA, type RunBudget } from './budget.ts';

/** A config `agents` entry: the template agents are built from. */
export interface AgentTemplate {
  description?: string;
  /** The system prompt. */
  instructions?: string;
  /**
   * A model reference (`'openai:gpt-4.1-mini'`, `'anthropic:claude-sonnet-4-5'`, `'offline'`) or a
   * model object: a `LanguageModel`, or an AI SDK language model (`groq('llama-3.3-70b')`); or an
   * array of them: a fallback chain, the next tried when one stays down.
   */
  model?: ModelSetting;
  /** Registered tool names or globs (`'filesystem_*'`); none when omitted. */
  tools?: string[];
  /** Model calls per run before the loop stops with `max-steps` (default 25). */
  maxSteps?: number;
  temperature?: number;
  maxTokens?: number;
  metadata?: Record<string, unknown>;
  /**
   * An agent that works for other agents (a sub-agent, a helper a workflow calls): not served on its
   * own over HTTP, A2A, AG-UI or MCP, nor listed on the page.
   */
  internal?: boolean;
  /** This agent's own permission rules: checked before the config's `permissions`, so they override them. */
  permissions?: PermissionsConfig;
  /**
   * Checks on what goes in and out of its runs: the user's message (`input`), each answer
   * (`output`), each tool call's arguments and result (`tool`). Built-ins and registered names
   * (`'pii'`), `{ use, ...options }`, or guardrail objects; after the config's own `guardrails`.
   */
  guardrails?: GuardrailsConfig;
  /**
   * Hard limits on each of its runs (model calls, tokens, US dollars, milliseconds): past one, the
   * run fails with BUDGET_EXCEEDED naming it. A run's own `budget` can only tighten these.
   */
  budget?: RunBudget;
  /**
   * What the model is sent of its runs (over the top-level `context`): `compaction` summarizes
   * older turns as a request nears the context window (`false`: never); `toolResults` keeps results
   * too large for the model whole and sends their beginning and a handle.
   */
  context?: ContextConfig;
  /**
   * What it remembers of a user across sessions (the `memory` plugin, on when a config uses it):
   * working memory read into its instructions and the `memory_recall` tool. Default false.
   */
  memory?: AgentMemoryConfig;
}

/** What `kernel.createAgent()` receives: a template with the agent's name (its id). */
export interface AgentSpec extends AgentTemplate {
  name: string;
}

/** What kernel hooks see of a live agent; in `agentCreated` a plugin taps its hooks here. */
export interface AgentHandle {
  readonly id: string;
  readonly spec: AgentSpec;
  readonly hooks: TapOnlyHooks<AgentHooks>;
}

export const DEFAULT_MAX_STEPS = 25;

export const AGENT_TEMPLATE_SCHEMA = {
  type: 'object',
  properties: {
    description: { type: 'string' },
    instructions: { type: 'string' },
    model: MODEL_SETTING_SCHEMA,
    tools: { type: 'array', items: { type: 'string', minLength: 1 } },
    maxSteps: { type: 'integer', minimum: 1, maximum: 1000 },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    maxTokens: { type: 'integer', minimum: 1 },
    metadata: { type: 'object' },
    internal: { type: 'boolean' },
    permissions: permissionsSchema(false),
    guardrails: GUARDRAILS_CONFIG_SCHEMA,
    budget: BUDGET_SCHEMA,
    context: CONTEXT_CONFIG_SCHEMA,
    memory: AGENT_MEMORY_SCHEMA,
  },
  additionalProperties: false,
} as const;
