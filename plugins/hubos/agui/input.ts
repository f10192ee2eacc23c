import { type Message as AguiMessage, contentToText, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import type { Context } from 'hono';
import type { Agent, RunOptions } from '../../../core/index.ts';
import { HUBOS_ERROR_CODES } from '../errors.ts';
import { readJson } from '../kit/read-body.ts';
import { RUN_BODY } from '../routes/agents.ts';
import { toClientTools, toToolResults } from './client-tools.ts';

/** One AG-UI run as HubOS runs it: the new input, and the thread as the session. */
export interface AguiRun {
  threadId: string;
  runId: string;
  /** The last new user message ('' when the run only answers client tool calls). */
  input: string;
  /** With the client's tools (`clientTools`) and its answers to pending calls (`toolResults`). */
  options: RunOptions;
}

// threadId becomes a session id, so it obeys the same rule as the REST routes' sessionId.
const THREAD_ID = new RegExp(RUN_BODY.properties.sessionId.pattern);

/**
 * Reads and validates a RunAgentInput. AG-UI clients resend the whole conversation; HubOS keeps
 * the thread's history itself, so only what follows the last assistant message is new: tool
 * results for the calls it left pending, and the user's message. `context` and `state` are not
 * used; of `forwardedProps`, only `userId` (the end user whose memory the run reads, as in the REST
 * run body).
 */
export async function readRunInput(c: Context, agent: Agent): Promise<AguiRun> {
  const body = await readJson(c);
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
    throw HUBOS_ERROR_CODES.create('INVALID_BODY', `invalid RunAgentInput: ${issues.join('; ')}`);
  }
  const data = parsed.data as RunAgentInput;
  if (!THREAD_ID.test(data.threadId)) {
    throw HUBOS_ERROR_CODES.create(
      'INVALID_BODY',
      `threadId must match ${THREAD_ID.source} (it names the session)`,
    );
  }
  const lastAssistant = data.messages.findLastIndex((message) => message.role === 'assistant');
  const fresh = data.messages.slice(lastAssistant + 1);
  const user = fresh.findLast((message) => message.role === 'user');
  const input = user ? contentToText(user.content).trim() : '';
  const answers = fresh.filter(
    (message): message is Extract<AguiMessage, { role: 'tool' }> => message.role === 'tool',
  );
  if (input === '' && answers.length === 0) {
    throw HUBOS_ERROR_CODES.create(
      'NO_INPUT',
      'no new user message or tool result after the last assistant message',
    );
  }
  const userId = (data.forwardedProps as { userId?: unknown } | undefined)?.userId;
  if (
    userId !== undefined &&
    !(
      typeof userId === 'string' &&
      new RegExp(RUN_BODY.properties.userId.pattern).test(userId) &&
      userId.length <= 256
    )
  )
    throw HUBOS_ERROR_CODES.create(
      'INVALID_BODY',
      'forwardedProps.userId must be a string of 1 to 256 characters, none of them a control character (such as NUL)',
    );
  const clientTools = toClientTools(data.tools ?? [], agent);
  const toolResults = toToolResults(data.messages, answers);
  return {
    threadId: data.threadId,
    runId: data.runId,
    input,
    options: {
      sessionId: data.threadId,
      ...(userId !== undefined ? { userId: userId as string } : {}),
      ...(clientTools.length > 0 ? { clientTools } : {}),
      ...(toolResults.length > 0 ? { toolResults } : {}),
    },
  };
}
