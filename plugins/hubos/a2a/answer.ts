import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { ApprovalDecision, ApprovalRecord } from '../../../core/index.ts';

/** As long as a reason may be over REST. */
const MAX_REASON_CHARS = 2_000;
// The word alone (a full stop or "!" allowed), or the word, a separator and the reason: "ok no",
// "yes? no" or "allow me to say: deny" are no answer at all, rather than an approval.
const APPROVE = /^\s*(approved?|yes|ok|okay|allow|accept)\s*(?:[.!]?\s*|[:,;\u2013\u2014-]\s*([\s\S]*))$/i;
const DENY = /^\s*(deny|denied|no|reject|decline)\s*(?:[.!]?\s*|[:,;\u2013\u2014-]\s*([\s\S]*))$/i;
/** The keys of a data part that is a decision rather than a question's fields. */
const DECISION_KEYS = new Set(['approved', 'reason', 'content', 'callId']);

/** What a client's message on an `input-required` task says, before it is matched to a request. */
export type Answer =
  | {
      kind: 'decision';
      approved: boolean;
      reason?: string;
      content?: Record<string, unknown>;
      callId?: string;
    }
  | { kind: 'fields'; fields: Record<string, unknown>; callId?: string };

const HOW =
  'Answer with "approve" or "deny" (a reason may follow), a data part {"approved": true|false, "reason"?, "content"?, "callId"?}, or, for a question, a data part holding the requested fields.';

/**
 * Reads a message as an answer: its first data part that is an object (a decision when it has a
 * boolean `approved` and nothing but decision keys, else a question's fields), else its text
 * ("approve"/"yes", "deny"/"no", a reason after). The request it answers is named by `callId` in
 * the data part or in the message's metadata. Throws a JSON-RPC invalid-params error saying how to answer.
 */
export function readAnswer(message: Message): Answer {
  const metadataCallId = stringOr(message.metadata?.callId);
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case !== 'data' || !isObject(content.value)) continue;
    const data = content.value;
    const callId = stringOr(data.callId) ?? metadataCallId;
    if (typeof data.approved === 'boolean' && Object.keys(data).every((key) => DECISION_KEYS.has(key))) {
      if (data.reason !== undefined && typeof data.reason !== 'string')
        throw new RequestMalformedError(`the answer's "reason" must be a string. ${HOW}`);
      if (data.content !== undefined && !isObject(data.content))
        throw new RequestMalformedError(
          `the answer's "content" must be an object of the requested fields. ${HOW}`,
        );
      return {
        kind: 'decision',
        approved: data.approved,
        ...reasonOf(data.reason),
        ...(data.content !== undefined ? { content: data.content as Record<string, unknown> } : {}),
        ...(callId ? { callId } : {}),
      };
    }
    return { kind: 'fields', fields: data, ...(callId ? { callId } : {}) };
  }
  const text = message.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('\n')
    .trim();
  const approve = APPROVE.exec(text);
  const said = approve ?? DENY.exec(text);
  if (!said)
    throw new RequestMalformedError(
      text === '' ? `the message holds no answer. ${HOW}` : `"${text.slice(0, 80)}" is not an answer. ${HOW}`,
    );
  return {
    kind: 'decision',
    approved: said === approve,
    ...reasonOf(said[2]?.trim()),
    ...(metadataCallId ? { callId: metadataCallId } : {}),
  };
}

/**
 * The pending request an answer is for: the one it names, or the only one. Several pending and
 * none named, or a name that is not pending, is an error listing what waits.
 */
export function chooseRequest(pending: ApprovalRecord[], answer: Answer, taskId: string): ApprovalRecord {
  const list = pending
    .map((request) => `${request.callId} (${kindOf(request)} "${request.tool}")`)
    .join(', ');
  if (answer.callId !== undefined) {
    const named = pending.find((request) => request.callId === answer.callId);
    if (named) return named;
    throw new RequestMalformedError({
      message: `task ${taskId} has no request "${answer.callId}" waiting for an answer; waiting: ${list}`,
      metadata: { pending: pending.map((request) => request.callId).join(',') },
    });
  }
  if (pending.length === 1) return pending[0]!;
  throw new RequestMalformedError({
    message: `task ${taskId} waits for ${pending.length} answers: ${list}. Say which one with "callId" in a data part (or in the message's metadata).`,
    metadata: { pending: pending.map((request) => request.callId).join(',') },
  });
}

/** The decision an answer makes on `request`: a question's fields approve it with them as its content. */
export function decisionFor(request: ApprovalRecord, answer: Answer): ApprovalDecision {
  if (answer.kind === 'decision') {
    const { approved, reason, content } = answer;
    return { approved, ...(reason ? { reason } : {}), ...(content ? { content } : {}) };
  }
  if (!request.question)
    throw new RequestMalformedError(
      `request ${request.callId} asks for permission to call "${request.tool}", not for fields: answer "approve" or "deny", or a data part {"approved": true|false}.`,
    );
  // `callId` names the request unless the question itself asks for a field of that name.
  const { callId: _named, ...fields } = answer.fields;
  const asksCallId = Object.hasOwn(request.question.schema.properties ?? {}, 'callId');
  return { approved: true, content: asksCallId ? answer.fields : fields };
}

const kindOf = (request: ApprovalRecord) => (request.question ? 'question from' : 'permission for');

function reasonOf(reason: unknown): { reason?: string } {
  if (typeof reason !== 'string' || reason === '') return {};
  if (reason.length > MAX_REASON_CHARS)
    throw new RequestMalformedError(`the reason is longer than ${MAX_REASON_CHARS} characters`);
  return { reason };
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}
