import type { FromSchema } from 'json-schema-to-ts';
import type { Usage } from '../agent/messages.ts';
import type { JSONSchemaObject } from '../json-schema.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import type { Store } from '../store/store.ts';
import type { ElicitRequest, ElicitResult, LogLevel, SampleRequest, SampleResult } from './interaction.ts';

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
   * Reports progress now. In an agent run: a `tool-progress` event of this call in the run's
   * stream. Over MCP (when the client sent a progress token): a progress notification; pass
   * `{ progress, total?, message? }` to give the client numbers, anything else becomes its message.
   * Does nothing where nobody listens (`invokeTool`, a direct `executeTool`).
   */
  progress: (data: unknown) => void;
  /**
   * Logs at a level (MCP's: `debug` … `emergency`). In an agent run: a `tool-log` event in the run's
   * stream; in a workflow's tool step: a `tool-log` event of the step and the app's logger; over
   * MCP: a `notifications/message` at or above the client's `logging/setLevel`. Does nothing where
   * nobody listens (`invokeTool`, a direct `executeTool`) unless the caller's env sets it.
   */
  log: (level: LogLevel, message: string, data?: unknown) => void;
  /**
   * Asks the human a structured question and waits for the answer. In an agent run it is an
   * approval request carrying the question (the page, REST, AG-UI, A2A `input-required` and the CLI
   * answer it, schema defaults filled in); over MCP it is an elicitation request to the client.
   * Rejects with `ELICITATION_UNAVAILABLE` where no human can be reached (a client without
   * elicitation, `invokeTool`); a timeout or a cancelled run resolves `{ action: 'cancel' }`, and
   * so does `options.signal` aborting (the question is withdrawn).
   */
  elicit: (request: ElicitRequest, options?: InteractionOptions) => Promise<ElicitResult>;
  /**
   * Asks a model for a completion. In an agent run: the run's own model (tokens count toward the
   * run's usage); over MCP: a sampling request to the client, when it offers sampling. Rejects with
   * `SAMPLING_UNAVAILABLE` where no model is offered (`invokeTool`, a client without sampling).
   * `options.signal` stops the request early (it rejects).
   */
  sample: (request: SampleRequest, options?: InteractionOptions) => Promise<SampleResult>;
}

/** What `tc.elicit` and `tc.sample` also take: a signal of the tool's own (the call's holds anyway). */
export interface InteractionOptions {
  signal?: AbortSignal;
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
  /**
   * JSON Schema of the structured result: a plain-object return value (or `toolOutput`'s
   * `structuredContent`) is checked against it, and MCP clients see it in `tools/list`.
   */
  outputSchema?: JSONSchemaObject;
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
  outputSchema?: JSONSchemaObject;
  handler: ToolHandler<InputOf<S>, O>;
  permissions?: readonly string[];
  metadata?: Record<string, unknown>;
  concurrent?: boolean;
}): Tool<InputOf<S>, O> {
  return tool as Tool<InputOf<S>, O>;
}
