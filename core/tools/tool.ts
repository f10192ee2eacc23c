import type { FromSchema } from 'json-schema-to-ts';
import type { Usage } from '../agent/messages.ts';
import type { JSONSchemaObject } from '../json-schema.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import type { StandardSchemaV1 } from '../standard-schema.ts';
import type { Store } from '../store/store.ts';
import type { ToolOutput } from './content.ts';
import type { ElicitRequest, ElicitResult, LogLevel, SampleRequest, SampleResult } from './interaction.ts';
import { withJSONSchemas } from './standard-schema-tool.ts';

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
  /**
   * Set for a tool declared with Standard Schemas (zod, valibot, ArkType…): the schemas as written.
   * They validate in place of `inputSchema` / `outputSchema`, which hold the JSON Schema derived
   * from them (what the model and MCP clients see).
   */
  standardSchemas?: { input?: StandardSchemaV1; output?: StandardSchemaV1 };
  handler: ToolHandler<I, O>;
  /** `<domain>:<action>` permissions the tool needs, e.g. `fs:read`, `net:http`. */
  permissions?: readonly string[];
  metadata?: Record<string, unknown>;
  /** False: never run alongside other calls of the same model turn (default true). */
  concurrent?: boolean;
  /**
   * True when running the same call twice does no more than running it once (a read, a lookup, a
   * put of a whole value): a call found in flight after a crash may then be run again. Default false.
   */
  idempotent?: boolean;
}

/**
 * A tool as written: like `Tool`, but either schema may also be a Standard Schema (zod, valibot,
 * ArkType…). `defineTool` and `Registry.register` turn it into a `Tool` (JSON Schema derived).
 */
// biome-ignore lint/suspicious/noExplicitAny: a registry takes tools of every input type.
export interface ToolSpec<I = any, O = unknown> extends Omit<Tool<I, O>, 'inputSchema' | 'outputSchema'> {
  inputSchema: ToolSchema;
  outputSchema?: ToolSchema;
}

/** What a tool's `inputSchema` / `outputSchema` may be written as: JSON Schema, or a Standard Schema. */
export type ToolSchema = JSONSchemaObject | StandardSchemaV1;

/**
 * The handler's input type: a Standard Schema's output type (after defaults and transforms), or
 * what a JSON Schema describes (falls back to a plain record where it cannot tell).
 */
export type InputOf<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends JSONSchemaObject
    ? FromSchema<S>
    : Record<string, unknown>;

/**
 * What the handler may return: for a Standard Schema `outputSchema`, data of its input type (or a
 * rich `toolOutput`); otherwise anything (`O`, inferred from the handler).
 */
export type ResultOf<OS, O> = OS extends StandardSchemaV1 ? StandardSchemaV1.InferInput<OS> | ToolOutput : O;

/**
 * Declares a tool with its handler's `tc.input` typed from the schema, JSON Schema
 * (`inputSchema: { type: 'object', properties: { city: { type: 'string' } } }`) or any Standard Schema
 * (`inputSchema: z.object({ city: z.string() })`). A Standard Schema tool comes back with the JSON
 * Schema derived from its schemas in `inputSchema` / `outputSchema` and the schemas themselves in
 * `standardSchemas`; throws TOOL_INVALID when no JSON Schema can be derived. A JSON Schema tool
 * comes back as it was given.
 */
export function defineTool<
  const S extends ToolSchema,
  O = unknown,
  const OS extends ToolSchema | undefined = undefined,
>(tool: {
  name: string;
  description: string;
  inputSchema: S;
  outputSchema?: OS;
  handler: ToolHandler<InputOf<S>, ResultOf<OS, O>>;
  permissions?: readonly string[];
  metadata?: Record<string, unknown>;
  concurrent?: boolean;
  idempotent?: boolean;
}): Tool<InputOf<S>, ResultOf<OS, O>> {
  return withJSONSchemas(tool as ToolSpec) as Tool<InputOf<S>, ResultOf<OS, O>>;
}
