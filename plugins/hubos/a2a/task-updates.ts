import { type Message, type Part, type Task, TaskState } from '@a2a-js/sdk';
import { AgentEvent as A2AEvent, type ExecutionEventBus } from '@a2a-js/sdk/server';
import type { AgentEvent, ApprovalResultEvent, RunRecord } from '../../../core/index.ts';
import { toolContentParts } from './content-parts.ts';
import { type AskedRequest, inputRequiredMessage } from './input-required.ts';
import { agentMessage, capJson, dataPart, textPart } from './parts.ts';

/** The artifact the answer streams into: one per task, so a client can follow it by id. */
export const ANSWER_ARTIFACT = 'answer';
/** Text deltas are gathered this long before they go out: one store write per chunk, not per token. */
const FLUSH_MS = 40;
/** Largest tool output put in a status message; the model still gets all of it. */
const MAX_OUTPUT_CHARS = 8_000;

/** Which agent and run serve the task: said in every status's metadata (`hubos`). */
export interface TaskRunMeta {
  agent: string;
  runId: string;
}

/**
 * Where a stored task stands in its run: the number of the last run event it shows (`seq`, kept
 * in `metadata.hubos.seq` by every status) and the requests it says it waits for (`pending`, while
 * `input-required`). A turn that takes the task on follows the run's events after `seq`.
 */
export interface ResumePoint {
  seq: number;
  pending: string[];
}

export function resumePointOf(task: Task, runId: string): ResumePoint {
  const hubos = (
    task.metadata as { hubos?: { runId?: unknown; seq?: unknown; pending?: unknown } } | undefined
  )?.hubos;
  if (hubos?.runId !== runId) return { seq: 0, pending: [] };
  const seq = typeof hubos.seq === 'number' && Number.isInteger(hubos.seq) && hubos.seq > 0 ? hubos.seq : 0;
  const pending = Array.isArray(hubos.pending)
    ? hubos.pending.filter((id): id is string => typeof id === 'string')
    : [];
  return { seq, pending };
}

/**
 * Turns a HubOS run's events into A2A task updates on the SDK's event bus: the answer as chunks of
 * one artifact, tool calls, results and approval outcomes as `working` status messages (data
 * parts, a result's rich content as file and text parts), `input-required` while the run waits
 * for a human, and a final status. Text a step says before calling tools is not the answer: the
 * next step's text replaces it. While the task waits for input, tool statuses are held back and
 * said once it works again, so a status never says `working` while a question is open.
 */
export class TaskUpdates {
  readonly #bus: ExecutionEventBus;
  readonly #taskId: string;
  readonly #contextId: string;
  readonly #meta: TaskRunMeta;
  #seq: number;
  #waiting: boolean;
  #heldBack: Message[] = [];
  #buffer = '';
  #timer: NodeJS.Timeout | undefined;
  #streamed = false;
  #replaceNext = false;
  #stepHadText = false;
  #closed = false;

  /** `start`: the event the task shows already (`seq`) and whether it waits for input there. */
  constructor(
    bus: ExecutionEventBus,
    taskId: string,
    contextId: string,
    meta: TaskRunMeta,
    start: { seq?: number; waiting?: boolean } = {},
  ) {
    this.#bus = bus;
    this.#taskId = taskId;
    this.#contextId = contextId;
    this.#meta = meta;
    this.#seq = start.seq ?? 0;
    this.#waiting = start.waiting ?? false;
  }

  /**
   * The task works (again): said, then the statuses held back while it waited. `quietly` says
   * nothing of its own (a request withdrawn as the run ends: its end says how it stands).
   */
  working(options: { quietly?: boolean } = {}): void {
    this.#waiting = false;
    if (!options.quietly) this.#status(TaskState.TASK_STATE_WORKING);
    for (const message of this.#heldBack.splice(0)) this.#status(TaskState.TASK_STATE_WORKING, message);
  }

  /** The run waits for these answers: the task is `input-required`, and this turn says no more. */
  inputRequired(asked: AskedRequest[]): void {
    this.#flush();
    const message = inputRequiredMessage(this.#taskId, this.#contextId, asked);
    this.#status(TaskState.TASK_STATE_INPUT_REQUIRED, message, {
      pending: asked.map((request) => request.callId),
    });
    this.#close();
  }

  /** Follows one run event, numbered `seq` in its run. Approval events are the translator's to read. */
  onEvent(event: AgentEvent, seq?: number): void {
    if (seq !== undefined) this.#seq = Math.max(this.#seq, seq);
    switch (event.type) {
      case 'step-start':
        this.#stepHadText = false;
        break;
      case 'text-delta':
        this.#stepHadText = true;
        this.#buffer += event.delta;
        this.#timer ??= setTimeout(() => this.#flush(), FLUSH_MS);
        break;
      case 'tool-call-end':
        this.#flush();
        if (this.#stepHadText) this.#replaceNext = true;
        this.#say({ type: 'tool-call', id: event.id, name: event.name, input: event.input });
        break;
      case 'tool-result': {
        const { id, name, ok, output, error, durationMs, content } = event.call;
        const data = {
          type: 'tool-result',
          id,
          name,
          ok,
          durationMs,
          ...(ok ? { output: capJson(output, MAX_OUTPUT_CHARS) } : { error }),
        };
        this.#say(data, ok && content ? toolContentParts(content) : []);
        break;
      }
      default:
        break;
    }
  }

  /** How a request was answered (or that it expired, or was withdrawn), for the task's history. */
  approvalResult(event: ApprovalResultEvent): void {
    const { callId, tool, approved, status, reason, answer } = event;
    this.#say({
      type: 'approval-result',
      callId,
      tool,
      approved,
      status,
      ...(reason ? { reason } : {}),
      ...(answer ? { answer } : {}),
    });
  }

  /** The final artifact and status. The artifact is sent whole, so the stored task holds one part. */
  finish(run: RunRecord | undefined): void {
    this.#cancelFlush();
    const result = run?.result;
    const extra = result ? { stopReason: result.stopReason, usage: result.usage } : {};
    if (result?.text) this.#artifact([textPart(result.text)], false, true);
    const status = run?.status === 'running' ? 'failed' : (run?.status ?? 'failed');
    if (status === 'completed') {
      const answer = result?.text ? [textPart(result.text)] : [];
      this.#status(TaskState.TASK_STATE_COMPLETED, this.#message(answer), extra);
    } else if (status === 'cancelled') {
      this.#status(TaskState.TASK_STATE_CANCELED, this.#message([textPart('The task was canceled.')]), extra);
    } else {
      const error = run?.error ?? result?.error ?? { code: 'RUN_FAILED', message: 'the run failed' };
      const text = `${error.code}: ${error.message}`;
      this.#status(TaskState.TASK_STATE_FAILED, this.#message([textPart(text)]), { ...extra, error });
    }
    this.#close();
  }

  #status(state: TaskState, message?: Message, extra: Record<string, unknown> = {}): void {
    if (this.#closed) return;
    this.#bus.publish(
      A2AEvent.statusUpdate({
        taskId: this.#taskId,
        contextId: this.#contextId,
        status: { state, message, timestamp: new Date().toISOString() },
        metadata: { hubos: { ...this.#meta, seq: this.#seq, ...extra } },
      }),
    );
  }

  #message(parts: Part[]): Message | undefined {
    return parts.length > 0 ? agentMessage(this.#taskId, this.#contextId, parts) : undefined;
  }

  #say(data: Record<string, unknown>, more: Part[] = []): void {
    const message = agentMessage(this.#taskId, this.#contextId, [dataPart(data), ...more], {
      hubos: data.type,
    });
    if (this.#waiting) this.#heldBack.push(message);
    else this.#status(TaskState.TASK_STATE_WORKING, message);
  }

  #close(): void {
    this.#cancelFlush();
    this.#closed = true;
  }

  #flush(): void {
    this.#cancelFlush();
    if (this.#buffer === '' || this.#closed) return;
    const text = this.#buffer;
    this.#buffer = '';
    // append=false replaces the artifact: the first chunk, and the first after a tool-calling step.
    this.#artifact([textPart(text)], this.#streamed && !this.#replaceNext, false);
    this.#streamed = true;
    this.#replaceNext = false;
  }

  #cancelFlush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #artifact(parts: Part[], append: boolean, lastChunk: boolean): void {
    if (this.#closed) return;
    this.#bus.publish(
      A2AEvent.artifactUpdate({
        taskId: this.#taskId,
        contextId: this.#contextId,
        artifact: {
          artifactId: ANSWER_ARTIFACT,
          name: 'answer',
          description: '',
          parts,
          metadata: undefined,
          extensions: [],
        },
        append,
        lastChunk,
        metadata: undefined,
      }),
    );
  }
}
