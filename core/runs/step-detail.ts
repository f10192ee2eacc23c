import type { RunResult } from '../agent/events.ts';
import type { Message } from '../agent/messages.ts';
import type { RunRecord } from './run-record.ts';
import { type RunStep, type RunTable, workflowOutput } from './run-table.ts';
import type { StepPayload } from './step-payload.ts';

/** One step of a run with its full payload (`GET /runs/:id/steps/:seq`). */
export interface StepDetail {
  step: RunStep;
  payload: StepPayload;
}

/** Earlier steps of a child track read to rebuild what one of its model calls was sent. */
const MAX_TRACK_STEPS = 200;

/**
 * A step of `record`'s run with its payload; undefined when the run has no step `seq`. A model
 * call's `sent` is rebuilt from what the run keeps, so it is the conversation as far as the run
 * knows it, never the system instructions, the tools' definitions or a session's earlier turns:
 * - a step of the run's own loop: the messages the run added (its result's, once ended; its
 *   journal's while it runs, when it keeps one) before that step's answer;
 * - a step of a child track: the task's description (a sub-agent's), then the track's earlier
 *   steps' answers and tool outputs, from their payloads (each as kept: cut ones stay cut).
 */
export async function stepDetail(
  table: RunTable,
  record: RunRecord,
  seq: number,
): Promise<StepDetail | undefined> {
  const stored = await table.step(record.id, seq);
  if (!stored) return undefined;
  const { step } = stored;
  const payload: StepPayload = stored.payload === null ? {} : (JSON.parse(stored.payload) as StepPayload);
  if (stored.payload === null && (step.kind === 'step' || step.kind === 'decision')) {
    const output = workflowOutput(step);
    if (output !== undefined) payload.output = output;
  }
  if (step.kind === 'model' && !payload.truncated) {
    const sent = step.track
      ? await trackSent(table, record.id, step)
      : await ownSent(table, record, step.step);
    if (sent) payload.sent = sent;
  }
  return { step, payload };
}

/** The run's own messages before the answer of its loop's step `loopStep`. */
async function ownSent(table: RunTable, record: RunRecord, loopStep: number): Promise<Message[] | undefined> {
  const result = record.result as Partial<RunResult> | undefined;
  let messages = Array.isArray(result?.messages) ? result.messages : undefined;
  if (!messages && record.status === 'running')
    messages = (await table.readJournal(record.id)).flatMap((entry) => entry.messages);
  if (!messages) return undefined;
  if (messages[0]?.role !== 'user' && record.input !== undefined)
    messages = [{ role: 'user', content: record.input }, ...messages];
  let answers = 0;
  const end = messages.findIndex((message) => message.role === 'assistant' && ++answers === loopStep);
  return end === -1 ? messages : messages.slice(0, end);
}

/** What a child track's model call was sent: its task, then the track's earlier steps. */
async function trackSent(table: RunTable, runId: string, step: RunStep): Promise<Message[]> {
  const track = step.track!;
  const steps = await table.steps(runId);
  const sent: Message[] = [];
  const task = track.callId ? steps.find((s) => !s.track && s.callId === track.callId) : undefined;
  if (task) {
    const input = (await payloadOf(table, runId, task.seq))?.input as { description?: unknown } | undefined;
    if (typeof input?.description === 'string') sent.push({ role: 'user', content: input.description });
  }
  const earlier = steps
    .filter((s) => s.track?.runId === track.runId && s.seq < step.seq && s.step <= step.step)
    .slice(-MAX_TRACK_STEPS);
  for (const before of earlier) {
    const payload = await payloadOf(table, runId, before.seq);
    if (!payload) continue;
    if (before.kind === 'model' && payload.answer)
      sent.push({
        role: 'assistant',
        content: payload.answer.text,
        ...(payload.answer.toolCalls ? { toolCalls: payload.answer.toolCalls } : {}),
      });
    else if (before.kind === 'tool')
      sent.push({
        role: 'tool',
        toolCallId: before.callId ?? '',
        name: before.name,
        content: payload.error
          ? `Error: ${payload.error.message}`
          : typeof payload.output === 'string'
            ? payload.output
            : (JSON.stringify(payload.output) ?? 'null'),
        ...(payload.error ? { isError: true } : {}),
      });
  }
  return sent;
}

async function payloadOf(table: RunTable, runId: string, seq: number): Promise<StepPayload | undefined> {
  const stored = await table.step(runId, seq);
  return stored?.payload ? (JSON.parse(stored.payload) as StepPayload) : undefined;
}
