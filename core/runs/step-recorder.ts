import type { AgentEvent } from '../agent/events.ts';
import type { RunStep } from './run-table.ts';

/**
 * Turns a run's events into its steps as they finish: a model call from `step-start` to
 * `step-finish` (with its usage), a tool call from `tool-call-end` to its `tool-result`. Events of
 * another run (a sub-agent's, forwarded) are not this run's steps.
 */
export class StepRecorder {
  readonly #runId: string;
  #seq = 0;
  #model = '';
  readonly #modelStarts = new Map<number, number>();
  readonly #toolStarts = new Map<string, number>();

  constructor(runId: string) {
    this.#runId = runId;
  }

  /** The steps `event` finishes (none for most events). */
  see(event: AgentEvent): RunStep[] {
    if (event.runId !== this.#runId) return [];
    switch (event.type) {
      case 'run-start':
        this.#model = event.model;
        return [];
      case 'step-start':
        this.#modelStarts.set(event.step, Date.now());
        return [];
      case 'tool-call-end':
        this.#toolStarts.set(event.id, Date.now());
        return [];
      case 'step-finish': {
        const started = this.#modelStarts.get(event.step) ?? Date.now();
        this.#modelStarts.delete(event.step);
        return [
          this.#step('model', this.#model, event.step, started, Date.now(), {
            usage: event.usage,
            finishReason: event.finishReason,
          }),
        ];
      }
      case 'tool-result': {
        const { call } = event;
        const finished = Date.now();
        const started = this.#toolStarts.get(call.id) ?? finished - call.durationMs;
        this.#toolStarts.delete(call.id);
        return [
          this.#step('tool', call.name, event.step, started, finished, {
            callId: call.id,
            ...(call.ok ? {} : { status: 'error' as const }),
            ...(call.error ? { error: call.error } : {}),
          }),
        ];
      }
      default:
        return [];
    }
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
      seq: ++this.#seq,
      kind,
      name,
      step,
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date(finished).toISOString(),
      durationMs: finished - started,
      status: 'ok',
      ...more,
    };
  }
}
