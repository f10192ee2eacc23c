import { type Message, type Part, TaskState } from '@a2a-js/sdk';
import { AgentEvent as A2AEvent, type ExecutionEventBus } from '@a2a-js/sdk/server';
import type { AgentEvent } from '../../../core/index.ts';
import type { RunRecord } from '../runs.ts';
import { agentMessage, dataPart, textPart } from './parts.ts';

/** The artifact the answer streams into: one per task, so a client can follow it by id. */
export const ANSWER_ARTIFACT = 'answer';
/** Text deltas are gathered this long before they go out: one store write per chunk, not per token. */
const FLUSH_MS = 40;
/** Largest tool output put in a status message; the model still gets all of it. */
const MAX_OUTPUT_CHARS = 8_000;

/**
 * Turns a HubOS run's events into A2A task updates on the SDK's event bus: the answer as chunks of
 * one artifact, tool calls and results as `working` status messages (data parts), and a final
 * status. Text a step says before calling tools is not the answer: the next step's text replaces it.
 */
export class TaskUpdates {
  readonly #bus: ExecutionEventBus;
  readonly #taskId: string;
  readonly #contextId: string;
  #buffer = '';
  #timer: NodeJS.Timeout | undefined;
  #streamed = false;
  #replaceNext = false;
  #stepHadText = false;
  #closed = false;

  /** Said of the task in every status's metadata (`hubos`): which agent and run serve it. */
  readonly #meta: { agent: string; runId: string };

  constructor(
    bus: ExecutionEventBus,
    taskId: string,
    contextId: string,
    meta: { agent: string; runId: string },
  ) {
    this.#bus = bus;
    this.#taskId = taskId;
    this.#contextId = contextId;
    this.#meta = meta;
  }

  /** The run has started. */
  working(): void {
    this.status(TaskState.TASK_STATE_WORKING, undefined, { hubos: this.#meta });
  }

  status(state: TaskState, message?: Message, metadata?: Record<string, unknown>): void {
    if (this.#closed) return;
    this.#bus.publish(
      A2AEvent.statusUpdate({
        taskId: this.#taskId,
        contextId: this.#contextId,
        status: { state, message, timestamp: new Date().toISOString() },
        metadata,
      }),
    );
  }

  /** Follows one run event. */
  onEvent(event: AgentEvent): void {
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
        const { id, name, ok, output, error, durationMs } = event.call;
        this.#say({
          type: 'tool-result',
          id,
          name,
          ok,
          durationMs,
          ...(ok ? { output: cap(output) } : { error }),
        });
        break;
      }
      default:
        break;
    }
  }

  /** The final artifact and status. The artifact is sent whole, so the stored task holds one part. */
  finish(run: RunRecord | undefined): void {
    this.#cancelFlush();
    const result = run?.result;
    const hubos = {
      ...this.#meta,
      ...(result ? { stopReason: result.stopReason, usage: result.usage } : {}),
    };
    if (result?.text) this.#artifact([textPart(result.text)], false, true);
    const status = run?.status === 'running' ? 'failed' : (run?.status ?? 'failed');
    if (status === 'completed') {
      const answer = result?.text ? [textPart(result.text)] : [];
      this.status(TaskState.TASK_STATE_COMPLETED, this.#message(answer), { hubos });
    } else if (status === 'cancelled') {
      this.status(TaskState.TASK_STATE_CANCELED, this.#message([textPart('The task was canceled.')]), {
        hubos,
      });
    } else {
      const error = run?.error ?? result?.error ?? { code: 'RUN_FAILED', message: 'the run failed' };
      const text = `${error.code}: ${error.message}`;
      this.status(TaskState.TASK_STATE_FAILED, this.#message([textPart(text)]), {
        hubos: { ...hubos, error },
      });
    }
    this.#closed = true;
  }

  #message(parts: Part[]): Message | undefined {
    return parts.length > 0 ? agentMessage(this.#taskId, this.#contextId, parts) : undefined;
  }

  #say(data: Record<string, unknown>): void {
    this.status(
      TaskState.TASK_STATE_WORKING,
      agentMessage(this.#taskId, this.#contextId, [dataPart(data)], { hubos: data.type }),
    );
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

function cap(output: unknown): unknown {
  const json = JSON.stringify(output) ?? 'null';
  return json.length <= MAX_OUTPUT_CHARS ? output : `${json.slice(0, MAX_OUTPUT_CHARS)}… (truncated)`;
}
