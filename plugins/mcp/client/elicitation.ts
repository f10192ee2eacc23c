import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, HubosError, type JSONSchemaObject, type Logger } from '../../../core/index.ts';
import type { CallOwner } from './calls-in-flight.ts';

/** How many questions one tool call may put to a person: a server asking more is declined. */
export const MAX_QUESTIONS_PER_CALL = 10;

/** The longest question (message and schema, as JSON) put to a person. */
export const MAX_QUESTION_CHARS = 20_000;

/**
 * Answers a server's form `elicitation/create` with `tc.elicit` of the call it belongs to: in a
 * run, an approval request carrying the question, answered by the run's human (the schema's
 * defaults filled in). Where no human can be reached — no call it belongs to, a surface without
 * one — it is declined, and the reason is logged and sent in `_meta`; so is a call asking too
 * many or too long questions.
 */
export async function answerElicitation(
  params: ElicitRequestFormParams,
  owner: CallOwner,
  server: string,
  logger: Logger,
): Promise<ElicitResult> {
  const decline = (reason: string): ElicitResult => {
    logger.info(`MCP server "${server}" asked a question HubOS declined: ${reason}`);
    return { action: 'decline', _meta: { 'hubos/reason': reason } };
  };
  if ('refusal' in owner) return decline(owner.refusal);
  const { call } = owner;
  if (call.questions >= MAX_QUESTIONS_PER_CALL)
    return decline(
      `the tool call "${call.tool}" already asked ${call.questions} questions, as many as HubOS puts to a person for one call`,
    );
  call.questions++;
  const size = JSON.stringify(params.requestedSchema).length + params.message.length;
  if (size > MAX_QUESTION_CHARS)
    return decline(
      `the question is ${size} characters long (message and schema), more than HubOS shows a person (${MAX_QUESTION_CHARS})`,
    );
  try {
    const answer = await call.tc.elicit({
      message: params.message,
      schema: params.requestedSchema as JSONSchemaObject,
    });
    if (answer.action === 'accept')
      return { action: 'accept', content: (answer.content ?? {}) as ElicitResult['content'] };
    return { action: answer.action, ...(answer.reason ? { _meta: { 'hubos/reason': answer.reason } } : {}) };
  } catch (error) {
    if (HubosError.is(error, 'ELICITATION_UNAVAILABLE')) return decline(errorMessage(error));
    // A question HubOS cannot ask (a schema that does not compile): the server hears why.
    if (HubosError.is(error, 'TOOL_INVALID'))
      throw new McpError(ErrorCode.InvalidParams, errorMessage(error));
    throw new McpError(ErrorCode.InternalError, `the question could not be asked: ${errorMessage(error)}`);
  }
}
