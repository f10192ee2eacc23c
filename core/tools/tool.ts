import type { FromSchema } from 'json-schema-to-ts';
import type { Usage } from '../agent/messages.ts';
import type { JSONSchemaObject } from '../json-schema.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import type { Store } from '../store/store.ts';

/** The per-call facts a handler acts on. */
export interface ToolContext<I = Record<string, unknown>> {
  /** Validated input, with the schema's defaults applied. */
  input: I;
  agentId: string;
  sandbox: Sandbox;
  store: Store;
  metadata: Record<string, unknown>;
  /** Set when an agent's run makes the call: the run's and the call's ids. */
  runId?: string;
  callId?: string;
  /**
   * Who the run is for, when its caller said (`RunOptions.principal`): over HubOS, the caller's
   * principal id (`key:…`, an API key's configured id, or `local`). Keep per-caller data under it.
   */
  principal?: string;
  /**
   * Adds tokens the handler spent on model calls of its own (a sub-agent's) to the run's usage.
   * Does nothing outside an agent run (`invokeTool`, a direct `executeTool`) unless the caller's env sets it.
   */
  addUsage: (usage: Partial<Usage>) => void;
  /**
   * Emits `data` now into the run's event stream, as a `tool-progress` event of this call.
   * Does nothing outside an agent run (`invokeTool`, a direct `executeTool`) unless the caller's env sets it.
   */
  progress: (data: unknown) => void;
}

export interface ToolCallOptions {
  /** Aborted when the run is cancelled or the call times out: pass it on to I/O. */
  signal: AbortSignal;
}

export type ToolHandler<I = Record<string, unknown>, O = unknown> = (
  ctx: ToolCallOptions,
  tc: ToolContext<I>,
) => O | Promise<O>;

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every input type.
export interface Tool<I = any, O = unknown> {
  /** What the model calls: `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string;
  /** Tells the model what the tool does and when to use it. */
  description: string;
  /** JSON Schema of the input object; the model sees it and input is validated against it. */
  inputSchema: JSONSchemaObject;
  handler: ToolHandler<I, O>;
  /** `<domain>:<action>` permissions the tool needs, e.g. `fs:read`, `net:http`. */
  permissions?: readonly string[];
  metadata?: Record<string, unknown>;
  /** False: never run alongside other calls of the same model turn (default true). */
  concurrent?: boolean;
}

/** The input type a JSON Schema describes (falls back to a plain record where it cannot tell). */
export type InputOf<S> = S extends JSONSchemaObject ? FromSchema<S> : Record<string, unknown>;

/**
 * Declares a tool with its handler's `tc.input` typed from the schema:
 * `defineTool({ inputSchema: { type: 'object', properties: { city: { type: 'string' } } }, ... })`.
 */
export function defineTool<const S extends JSONSchemaObject, O = unknown>(tool: {
  name: string;
  description: string;
  inputSchema: S;
  handler: ToolHandler<InputOf<S>, O>;
  permissions?: readonly string[];
  metadata?: Record<string, unknown>;
  concurrent?: boolean;
}): Tool<InputOf<S>, O> {
  return tool as Tool<InputOf<S>, O>;
}
