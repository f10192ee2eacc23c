import { errorMessage, HubosError } from '../errors.ts';
import { type JSONSchemaObject, SchemaCompilers } from '../json-schema.ts';
import type { AudioContent, ImageContent, TextContent } from './content.ts';

/** Log levels, as MCP (and syslog) name them, least severe first. */
export const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * A structured question to the run's human (MCP elicitation): `schema` is a flat object schema
 * whose properties are strings, numbers, integers, booleans or enums (MCP's restricted subset).
 */
export interface ElicitRequest {
  message: string;
  schema: JSONSchemaObject;
}

/** What the human did: `accept` with the fields (schema defaults filled in), `decline`, or `cancel` (no answer). */
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
  /** Why, when declined or cancelled (a timeout, the run ending, the human's reason). */
  reason?: string;
}

export interface SampleMessage {
  role: 'user' | 'assistant';
  content: string | TextContent | ImageContent | AudioContent;
}

/** A model completion asked for by a tool (MCP sampling). */
export interface SampleRequest {
  messages: SampleMessage[];
  system?: string;
  maxTokens: number;
  temperature?: number;
  stopSequences?: string[];
}

export interface SampleResult {
  /** The completion's text. */
  text: string;
  /** `provider:model` (or the client's model name) that answered. */
  model: string;
  stopReason?: string;
}

/** How a surface serves a tool's questions: each one absent where the surface cannot. */
export interface ToolInteraction {
  /** Becomes `tc.log` (default: nothing). */
  log?: (level: LogLevel, message: string, data?: unknown) => void;
  /** Becomes `tc.elicit` (default: rejects with `ELICITATION_UNAVAILABLE`). */
  elicit?: (request: ElicitRequest, signal: AbortSignal) => Promise<ElicitResult>;
  /** Becomes `tc.sample` (default: rejects with `SAMPLING_UNAVAILABLE`). */
  sample?: (request: SampleRequest, signal: AbortSignal) => Promise<SampleResult>;
}

const schemaCheck = new SchemaCompilers();

/**
 * A question must be a message and an object schema that compiles: said to the tool's author at
 * once (TOOL_INVALID), on every path.
 * @internal
 */
export function checkElicitRequest(request: ElicitRequest): void {
  if (typeof request?.message !== 'string' || request.message.trim() === '')
    throw new HubosError('TOOL_INVALID', 'tc.elicit(): `message` must say what is asked');
  const schema = request.schema;
  if (typeof schema !== 'object' || schema === null || schema.type !== 'object')
    throw new HubosError(
      'TOOL_INVALID',
      'tc.elicit(): `schema` must be an object schema, e.g. { type: "object", properties: { name: { type: "string" } } }',
    );
  const ajv = schemaCheck.for(schema);
  try {
    ajv.compile(schema);
  } catch (error) {
    throw new HubosError('TOOL_INVALID', `tc.elicit(): \`schema\` does not compile: ${errorMessage(error)}`);
  } finally {
    ajv.removeSchema(schema); // its $id too, so the same question can be asked again
  }
}
