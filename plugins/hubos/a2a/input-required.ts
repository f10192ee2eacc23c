import type { Message, Part } from '@a2a-js/sdk';
import type { ApprovalRecord, JSONSchemaObject } from '../../../core/index.ts';
import { agentMessage, capJson, dataPart, textPart } from './parts.ts';

/** Longest tool input quoted in the text; the data part carries it whole (up to its own cap). */
const MAX_INPUT_CHARS = 2_000;
const MAX_DATA_INPUT_CHARS = 8_000;

/** What an `input-required` task asks: the run's approval requests still waiting for an answer. */
export type AskedRequest = Pick<
  ApprovalRecord,
  'callId' | 'tool' | 'input' | 'permissions' | 'rule' | 'question' | 'expiresAt'
>;

/**
 * The status message of a task waiting for input: in words, what each request asks and how to
 * answer it on the task; a data part per request (`type: 'approval-request'`, with the question's
 * schema); and, in its metadata, the callIds an answer names (`callIds`).
 */
export function inputRequiredMessage(taskId: string, contextId: string, asked: AskedRequest[]): Message {
  const text =
    asked.length === 1
      ? `${describe(asked[0]!)}\n\n${howToAnswer(asked[0]!)}`
      : [
          `${asked.length} requests wait for an answer. Answer one at a time on this task, naming it by callId: a data part {"callId": "…", …} (or the message's metadata.callId).`,
          ...asked.map(
            (request, i) => `${i + 1}. [${request.callId}] ${describe(request)} ${howToAnswer(request)}`,
          ),
        ].join('\n\n');
  const parts: Part[] = [textPart(text), ...asked.map(requestData)];
  return agentMessage(taskId, contextId, parts, {
    hubos: 'input-required',
    callIds: asked.map((request) => request.callId),
  });
}

function describe(request: AskedRequest): string {
  if (request.question) return `The tool "${request.tool}" asks: ${request.question.message}`;
  const why = request.permissions.length > 0 ? ` because it needs ${request.permissions.join(', ')}` : '';
  const rule = request.rule ? ` (permission rule "${request.rule}" says ask)` : '';
  return `The agent wants to call the tool "${request.tool}" with input ${quote(request.input)}. It needs your approval${why}${rule}.`;
}

function howToAnswer(request: AskedRequest): string {
  if (!request.question)
    return 'Answer "approve" or "deny", optionally followed by a reason ("deny: not on weekends"), or a data part {"approved": true|false, "reason": "…"}.';
  const fields = fieldsOf(request.question.schema);
  const wanted = fields.length > 0 ? `the fields ${fields.join('; ')}` : 'no fields (an empty object)';
  return `Answer with a data part holding ${wanted}; or "deny" to decline.`;
}

/** `name (string, required) — what it is`, per property of a question's flat schema. */
function fieldsOf(schema: JSONSchemaObject): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JSONSchemaObject | boolean>;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(properties).map(([name, property]) => {
    const spec = typeof property === 'object' ? property : {};
    const facts = [
      Array.isArray(spec.enum)
        ? `one of ${spec.enum.map((value: unknown) => JSON.stringify(value)).join(', ')}`
        : String(spec.type ?? 'any'),
      ...(required.has(name) ? ['required'] : []),
      ...(spec.default !== undefined ? [`default ${JSON.stringify(spec.default)}`] : []),
    ];
    const about = spec.description ?? spec.title;
    return `${name} (${facts.join(', ')})${about ? ` — ${about}` : ''}`;
  });
}

function requestData(request: AskedRequest): Part {
  return dataPart({
    type: 'approval-request',
    callId: request.callId,
    tool: request.tool,
    input: capJson(request.input, MAX_DATA_INPUT_CHARS),
    permissions: request.permissions,
    ...(request.rule ? { rule: request.rule } : {}),
    ...(request.question ? { question: request.question } : {}),
    ...(request.expiresAt ? { expiresAt: request.expiresAt } : {}),
  });
}

function quote(input: unknown): string {
  const json = JSON.stringify(input) ?? 'null';
  return json.length <= MAX_INPUT_CHARS ? json : `${json.slice(0, MAX_INPUT_CHARS)}… (truncated)`;
}
