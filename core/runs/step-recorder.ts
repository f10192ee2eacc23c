import type { AgentEvent } from '../agent/events.ts';
import type { RunStep } from './run-table.ts';

/**
 * Turns a run's events into its steps: at each `step-finish` (once the loop has stored the step's
 * messages), the model call, from `step-start` to its last streamed part, then the tool calls it
 * asked for, each with its own duration. Events of another run (a sub-agent's, forwarded) are not
 * this run's steps.
 */
export class StepRecorder {
  readonly #runId: string;
  #seq = 0;
  #model = '';
  #modelStart = 0;
  /** When the model last streamed in this step: the call's end, once its tools start. */
  #modelEnd: number | undefined;
  #tools: RunStep[] = [];

  constructor(runId: string) {
    this.#runId = runId;
  }

  /** The steps `event` finishes, in order (none for most events). */
  see(event: AgentEvent): RunStep[] {
    if (event.runId !== this.#runId) return [];
    switch (event.type) {
      case 'run-start':
        this.#model = event.model;
        return [];
      case 'step-start':
        this.#modelStart = Date.now();
        this.#modelEnd = undefined;
        this.#tools = [];
        return [];
      case 'text-delta':
      case 'tool-call-start':
      case 'tool-call-args':
      case 'tool-call-end':
        if (this.#tools.length === 0) this.#modelEnd = Date.now();
        return [];
      case 'tool-result': {
        const { call } = event;
        const finished = Date.now();
        const started = finished - call.durationMs;
        this.#modelEnd ??= started;
        this.#tools.push(
          this.#step('tool', call.name, event.step, started, finished, {
            callId: call.id,
            ...(call.ok ? {} : { status: 'error' as const }),
            ...(call.error ? { error: call.error } : {}),
          }),
        );
        return [];
      }
      case 'step-finish': {
        // A step resumed after its instance died reports only its tools: its model call was the
        // dead instance's, and is not timed here.
        if (this.#modelStart === 0) return this.#number(this.#tools.splice(0));
        const model = this.#step(
          'model',
          this.#model,
          event.step,
          this.#modelStart,
          this.#modelEnd ?? Date.now(),
          {
            usage: event.usage,
            finishReason: event.finishReason,
          },
        );
        this.#modelStart = 0;
        return this.#number([model, ...this.#tools.splice(0)]);
      }
      default:
        return [];
    }
  }

  #number(steps: RunStep[]): RunStep[] {
    for (const step of steps) step.seq = ++this.#seq;
    return steps;
  }

  #step(
    kind: RunStep['kind'],
    name: string,
    step: number,
    started: number,
    finished: number,
    more: Partial<RunStep>,
  ): RunStep {
    return {
      runId: this.#runId,
      seq: 0,
      kind,
      name,
      step,
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date(finished).toISOString(),
      durationMs: Math.max(0, finished - started),
      status: 'ok',
      ...more,
    };
  }
}
