import { randomUUID } from 'node:crypto';
import { type Event as AguiEvent, EventType, PROTOCOL_VERSION, type TokenUsage } from '@ag-ui/core';
import {
  type AgentEvent,
  contentToText,
  errorMessage,
  type GuardrailVerdictRecord,
  HubosError,
  type RunResult,
} from '../../../core/index.ts';

/**
 * Turns one HubOS run's AgentEvents into AG-UI events. Stateful, because AG-UI brackets what
 * HubOS streams flat: each step's text is one assistant message (START/CONTENT/END) that also
 * holds the step's tool calls, and every message, call and step is closed before the run ends,
 * as `@ag-ui/client` checks. A call that ends without a result (a client tool) is reported as
 * pending in RUN_FINISHED, for the client to answer in its next run.
 */
export class AguiTranslator {
  readonly #threadId: string;
  readonly #runId: string;
  #model = '';
  #step: string | undefined;
  #messageId: string | undefined;
  #textOpen = false;
  /** Calls started and not yet ended, with whether their arguments were streamed. */
  readonly #openCalls = new Map<string, { streamed: boolean }>();
  /** Calls ended without a result so far. */
  readonly #pending = new Set<string>();
  #ended = false;

  constructor(threadId: string, runId: string) {
    this.#threadId = threadId;
    this.#runId = runId;
  }

  /** RUN_STARTED, sent before the agent starts so that any failure can follow it. */
  start(): AguiEvent[] {
    return [
      {
        type: EventType.RUN_STARTED,
        threadId: this.#threadId,
        runId: this.#runId,
        protocolVersion: PROTOCOL_VERSION,
      },
    ];
  }

  translate(event: AgentEvent): AguiEvent[] {
    if (this.#ended) return [];
    switch (event.type) {
      case 'run-start':
        this.#model = event.model;
        // The HubOS run behind the AG-UI run: its record and events are at /api/runs/<runId>,
        // readable (and cancellable) from any instance.
        return [
          { type: EventType.CUSTOM, name: 'hubos.run', value: { runId: event.runId, agent: event.agent } },
        ];
      case 'step-start':
        this.#messageId = undefined;
        this.#step = `step ${event.step}`;
        return [{ type: EventType.STEP_STARTED, stepName: this.#step }];
      case 'text-delta':
        return event.delta === '' ? [] : this.#text(event.delta);
      case 'tool-call-start':
        return this.#startCall(event.id, event.name);
      case 'tool-call-args': {
        const call = this.#openCalls.get(event.id);
        if (!call || event.delta === '') return [];
        call.streamed = true;
        return [{ type: EventType.TOOL_CALL_ARGS, toolCallId: event.id, delta: event.delta }];
      }
      case 'tool-call-end':
        return this.#endCall(event.id, event.name, event.input);
      case 'tool-result': {
        const { call } = event;
        this.#pending.delete(call.id);
        return [
          {
            type: EventType.TOOL_CALL_RESULT,
            messageId: randomUUID(),
            toolCallId: call.id,
            role: 'tool',
            content: resultText(call),
          },
          ...verdictEvents(event.runId, event.step, event.guardrails),
        ];
      }
      case 'step-finish':
        return [...verdictEvents(event.runId, event.step, event.guardrails), ...this.#closeStep()];
      case 'guardrail':
        return verdictEvents(event.runId, event.step, event.verdicts);
      case 'run-finish':
        return this.#finish(event.result);
      case 'run-error':
        this.#ended = true;
        return [this.#error(event.error.code, event.error.message, event.result)];
      case 'approval-request':
      case 'approval-result':
      case 'tool-progress':
      case 'tool-log':
      case 'model-retry':
      case 'compaction':
        // AG-UI has no approval (or tool progress, log, retry or compaction) event: a CUSTOM one lets a front end
        // show it, and answer an approval — or a tool's `question` — over REST
        // (POST /api/runs/<runId>/approvals/<callId> with { approved, content }).
        return [{ type: EventType.CUSTOM, name: `hubos.${event.type}`, value: event }];
    }
  }

  /** RUN_ERROR for a run that threw instead of reporting its end. */
  fail(error: unknown): AguiEvent[] {
    if (this.#ended) return [];
    this.#ended = true;
    return [this.#error(HubosError.is(error) ? error.code : 'RUN_FAILED', errorMessage(error))];
  }

  /** After the agent's stream: a run that ended without saying how did not succeed. */
  end(): AguiEvent[] {
    return this.fail(new HubosError('RUN_FAILED', 'the run ended without a result'));
  }

  #text(delta: string): AguiEvent[] {
    const events: AguiEvent[] = [];
    if (!this.#textOpen) {
      this.#textOpen = true;
      events.push({ type: EventType.TEXT_MESSAGE_START, messageId: this.#message(), role: 'assistant' });
    }
    events.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.#message(), delta });
    return events;
  }

  #startCall(id: string, name: string): AguiEvent[] {
    if (this.#openCalls.has(id)) return [];
    // The text before a call is complete; the call belongs to the same assistant message.
    const events = this.#closeText();
    this.#openCalls.set(id, { streamed: false });
    events.push({
      type: EventType.TOOL_CALL_START,
      toolCallId: id,
      toolCallName: name,
      parentMessageId: this.#message(),
    });
    return events;
  }

  #endCall(id: string, name: string, input: unknown): AguiEvent[] {
    const events = this.#openCalls.has(id) ? [] : this.#startCall(id, name);
    // Providers stream arguments only sometimes; the parsed input is always there.
    if (!this.#openCalls.get(id)?.streamed) {
      const delta = typeof input === 'string' ? input : (JSON.stringify(input ?? {}) ?? '{}');
      events.push({ type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta });
    }
    this.#openCalls.delete(id);
    this.#pending.add(id);
    events.push({ type: EventType.TOOL_CALL_END, toolCallId: id });
    return events;
  }

  #finish(result: RunResult): AguiEvent[] {
    const events = this.#closeStep();
    this.#ended = true;
    const pending = [...this.#pending];
    const outcome =
      result.status === 'cancelled'
        ? { type: 'cancelled' as const }
        : { type: 'success' as const, ...(pending.length > 0 ? { pendingToolCallIds: pending } : {}) };
    events.push({
      type: EventType.RUN_FINISHED,
      threadId: this.#threadId,
      runId: this.#runId,
      outcome,
      usage: this.#usage(result),
      metadata: { hubos: { runId: result.runId, stopReason: result.stopReason } },
    });
    return events;
  }

  #error(code: string, message: string, result?: RunResult): AguiEvent {
    return {
      type: EventType.RUN_ERROR,
      code,
      message,
      ...(result ? { usage: this.#usage(result), metadata: { hubos: { runId: result.runId } } } : {}),
    };
  }

  #usage(result: RunResult): TokenUsage[] {
    const [provider, ...model] = this.#model.split(':');
    const { inputTokens, outputTokens } = result.usage;
    return [
      {
        ...(provider ? { provider } : {}),
        ...(model.length > 0 ? { model: model.join(':') } : {}),
        inputTokens,
        outputTokens,
        totalTokens: inputTokens + outputTokens,
      },
    ];
  }

  /** The current step's assistant message id, made when first needed. */
  #message(): string {
    this.#messageId ??= randomUUID();
    return this.#messageId;
  }

  #closeText(): AguiEvent[] {
    if (!this.#textOpen) return [];
    this.#textOpen = false;
    return [{ type: EventType.TEXT_MESSAGE_END, messageId: this.#message() }];
  }

  /** Closes what the step left open: its text, calls cut short (cancelled), the step itself. */
  #closeStep(): AguiEvent[] {
    const events = this.#closeText();
    for (const id of this.#openCalls.keys()) events.push({ type: EventType.TOOL_CALL_END, toolCallId: id });
    this.#openCalls.clear();
    if (this.#step !== undefined) {
      events.push({ type: EventType.STEP_FINISHED, stepName: this.#step });
      this.#step = undefined;
    }
    return events;
  }
}

/**
 * A tool result as the model saw it (see core/agent/tool-runner.ts): a rich result's parts in words
 * (AG-UI's TOOL_CALL_RESULT carries text; the parts are in the run's record, GET /api/runs/<id>).
 */
function resultText(call: Extract<AgentEvent, { type: 'tool-result' }>['call']): string {
  if (!call.ok) return `Error: ${call.error?.message ?? 'the tool failed'}`;
  if (call.content) return contentToText(call.content);
  return typeof call.output === 'string' ? call.output : (JSON.stringify(call.output) ?? 'null');
}

/**
 * AG-UI has no guardrail event: a CUSTOM `hubos.guardrail` per rewrite or trip (a pass says
 * nothing), its value the verdict with the run and step it belongs to.
 */
function verdictEvents(
  runId: string,
  step: number,
  verdicts: readonly GuardrailVerdictRecord[] | undefined,
): AguiEvent[] {
  if (!verdicts) return [];
  return verdicts
    .filter((verdict) => verdict.action !== 'pass')
    .map((verdict) => ({
      type: EventType.CUSTOM,
      name: 'hubos.guardrail',
      value: { type: 'guardrail', runId, step, ...verdict },
    }));
}
