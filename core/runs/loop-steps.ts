import type { AgentEvent, ToolCallRecord } from '../agent/events.ts';
import type { GuardrailVerdictRecord } from '../guardrails/guardrail.ts';
import type { RunStep, StepApproval, StepRetry, StepTrack } from './run-table.ts';
import { keptPayload, previewOf, STEP_PAYLOAD, type StepPayload } from './step-payload.ts';

/**
 * The steps of one agent loop, from its events: at each `step-finish`, the model call (from
 * `step-start` to its last streamed part, with its time to first token and its answer), then the
 * tool calls it asked for, each with its own duration, permission verdict, approval and payload.
 * Unnumbered: the run's recorder numbers them.
 */
export class LoopSteps {
  readonly #runId: string;
  readonly #track: StepTrack | undefined;
  #model = '';
  #modelStart = 0;
  /** When the model first streamed in this step. */
  #firstToken: number | undefined;
  /** When the model last streamed in this step: the call's end, once its tools start. */
  #modelEnd: number | undefined;
  #text: string[] = [];
  #calls: { id: string; name: string; input: unknown }[] = [];
  #tools: RunStep[] = [];
  /** Approvals (and tools' questions) answered in this step, by the call they were about. */
  #approvals: Map<string, StepApproval> | undefined;
  /** The verdicts of a guardrail's trip, for the step the run failed in. */
  #trip: GuardrailVerdictRecord[] | undefined;
  /** The model call's retries and failovers in this step. */
  #retries: StepRetry[] = [];
  /** The summaries made before this step's model call, recorded before it. */
  #compactions: RunStep[] = [];

  /** `runId`: the run whose steps these are (the recording run's); `track`: whose loop this is, when not its own. */
  constructor(runId: string, track?: StepTrack) {
    this.#runId = runId;
    this.#track = track;
  }

  /** The steps `event` finishes, in order (none for most events). */
  see(event: AgentEvent): RunStep[] {
    switch (event.type) {
      case 'run-start':
        this.#model = event.model;
        return [];
      case 'step-start':
        this.#modelStart = Date.now();
        this.#firstToken = this.#modelEnd = undefined;
        this.#text = [];
        this.#calls = [];
        this.#tools = [];
        this.#retries = [];
        return [];
      case 'model-retry': {
        const { model, attempt, reason, delayMs, next } = event;
        this.#retries.push({ model, attempt, reason, delayMs, next, at: new Date().toISOString() });
        return [];
      }
      case 'text-delta':
        this.#text.push(event.delta);
        this.#streamed();
        return [];
      case 'tool-call-end':
        this.#calls.push({ id: event.id, name: event.name, input: event.input });
        this.#streamed();
        return [];
      case 'tool-call-start':
      case 'tool-call-args':
        this.#streamed();
        return [];
      case 'approval-result': {
        // A tool's question is asked as `<call id>.ask-<n>`: it belongs to that call.
        const at = event.callId.indexOf('.ask-');
        const callId = at === -1 ? event.callId : event.callId.slice(0, at);
        this.#approvals ??= new Map();
        // The permission's approval (asked first) over the tool's questions.
        if (!this.#approvals.has(callId))
          this.#approvals.set(callId, {
            approved: event.approved,
            ...(event.decidedBy ? { by: event.decidedBy } : {}),
            at: event.decidedAt ?? new Date().toISOString(),
            ...(event.question ? { question: true } : {}),
            ...(event.reason ? { reason: event.reason } : {}),
          });
        return [];
      }
      case 'guardrail':
        this.#trip = event.verdicts;
        return [];
      case 'compaction': {
        // It ran inside the step, before the model call: the call's time starts after it.
        const now = Date.now();
        const started = this.#modelStart === 0 ? now : this.#modelStart;
        this.#compactions.push(
          this.#step('compaction', event.model, event.step, started, now, {
            detail: {
              tokensBefore: event.tokensBefore,
              tokensAfter: event.tokensAfter,
              through: event.through,
            },
            preview: {
              output: `${event.through} messages summarized: ${event.tokensBefore} → ${event.tokensAfter} tokens`,
            },
          }),
        );
        if (this.#modelStart !== 0) this.#modelStart = now;
        return [];
      }
      case 'run-error':
        return this.#failedStep(event);
      case 'tool-result': {
        const finished = Date.now();
        const started = finished - event.call.durationMs;
        this.#modelEnd ??= started;
        this.#tools.push(this.#toolStep(event.call, event.step, started, finished, event.guardrails));
        return [];
      }
      case 'step-finish': {
        // A step resumed after its instance died reports only its tools: its model call was the
        // dead instance's, and is not timed here.
        if (this.#modelStart === 0) return [...this.#compactions.splice(0), ...this.#tools.splice(0)];
        const model = this.#modelStep(event);
        this.#modelStart = 0;
        this.#approvals = undefined;
        return [...this.#compactions.splice(0), model, ...this.#tools.splice(0)];
      }
      default:
        return [];
    }
  }

  /**
   * A run that a guardrail stopped keeps the model step it stopped in, with the trip's verdicts
   * (those of its step or call not told before, the trip last).
   */
  #failedStep(event: Extract<AgentEvent, { type: 'run-error' }>): RunStep[] {
    const trip = this.#trip;
    // A run that failed after summarizing (its model refused, say) still shows the summary.
    if (!trip) return [...this.#compactions.splice(0), ...this.#failedCall(event)];
    const now = Date.now();
    const started = this.#modelStart === 0 ? now : this.#modelStart;
    const step = this.#step('model', this.#model, event.result.steps || 1, started, this.#modelEnd ?? now, {
      status: 'error',
      error: event.error,
      guardrails: trip,
    });
    this.#trip = undefined;
    return [step, ...this.#tools.splice(0)];
  }

  /** A model call that failed after retries (every model of its chain down) keeps them on its step. */
  #failedCall(event: Extract<AgentEvent, { type: 'run-error' }>): RunStep[] {
    if (this.#retries.length === 0 || this.#modelStart === 0) return [];
    const now = Date.now();
    const step = this.#step(
      'model',
      this.#retries.at(-1)!.next,
      event.result.steps || 1,
      this.#modelStart,
      now,
      {
        status: 'error',
        error: event.error,
        retries: this.#retries.splice(0),
      },
    );
    this.#modelStart = 0;
    return [step];
  }

  #streamed(): void {
    const now = Date.now();
    this.#firstToken ??= now;
    if (this.#tools.length === 0) this.#modelEnd = now;
  }

  #modelStep(event: Extract<AgentEvent, { type: 'step-finish' }>): RunStep {
    const finished = this.#modelEnd ?? Date.now();
    const text = this.#text.join('');
    // After a failover the step is the model's that answered.
    const name = this.#retries.at(-1)?.next ?? this.#model;
    const step = this.#step('model', name, event.step, this.#modelStart, finished, {
      ...(this.#retries.length > 0 ? { retries: this.#retries.splice(0) } : {}),
      usage: event.usage,
      finishReason: event.finishReason,
      ...(this.#firstToken !== undefined ? { firstTokenMs: this.#firstToken - this.#modelStart } : {}),
      ...(event.guardrails ? { guardrails: event.guardrails } : {}),
    });
    const answer = { text, ...(this.#calls.length > 0 ? { toolCalls: this.#calls } : {}) };
    const output = previewOf(text || (this.#calls.length > 0 ? this.#calls : undefined));
    if (output !== undefined && output !== '') step.preview = { output };
    return withPayload(step, { answer });
  }

  #toolStep(
    call: ToolCallRecord,
    loopStep: number,
    started: number,
    finished: number,
    verdicts: GuardrailVerdictRecord[] | undefined,
  ): RunStep {
    const approval = this.#approvals?.get(call.id);
    const step = this.#step('tool', call.name, loopStep, started, finished, {
      callId: call.id,
      ...(call.ok ? {} : { status: 'error' as const }),
      ...(call.error ? { error: call.error } : {}),
      ...(call.permission ? { permission: call.permission } : {}),
      ...(approval ? { approval } : {}),
      ...(verdicts ? { guardrails: verdicts } : {}),
    });
    const preview: NonNullable<RunStep['preview']> = {};
    const input = previewOf(call.input);
    const output = previewOf(call.ok ? call.output : call.error?.message);
    if (input !== undefined) preview.input = input;
    if (output !== undefined) preview.output = output;
    step.preview = preview;
    return withPayload(
      step,
      call.ok ? { input: call.input, output: call.output } : { input: call.input, error: call.error! },
    );
  }

  #step(
    kind: RunStep['kind'],
    name: string,
    loopStep: number,
    started: number,
    finished: number,
    more: Partial<RunStep>,
  ): RunStep {
    return {
      runId: this.#runId,
      seq: 0,
      kind,
      name,
      step: loopStep,
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date(finished).toISOString(),
      durationMs: Math.max(0, finished - started),
      status: 'ok',
      ...(this.#track ? { track: this.#track } : {}),
      ...more,
    };
  }
}

function withPayload(step: RunStep, payload: StepPayload): RunStep {
  const { json, bytes } = keptPayload(payload);
  step.payloadBytes = bytes;
  step[STEP_PAYLOAD] = json;
  return step;
}
