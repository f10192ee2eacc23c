// A running run's trace, built from its events (GET /runs/:id/events) into step records shaped
// like the recorded ones, so the same waterfall draws them; the recorded steps replace them at run-end.

import { brief } from './studio-format.js';

export class LiveSteps {
  constructor(runId) {
    this.runId = runId;
    this.steps = [];
    this.models = new Map(); // loop step → its model call
    this.tools = new Map(); // call id → its tool call
    this.pending = new Map(); // call id → approval-request event still waiting
  }

  #add(step) {
    step.seq = this.steps.length + 1;
    this.steps.push(step);
    return step;
  }

  #finish(step, status, at = Date.now()) {
    step.running = false;
    step.status = status;
    step.finishedAt = new Date(at).toISOString();
    step.durationMs = at - Date.parse(step.startedAt);
  }

  /**
   * The model call of a loop step has answered once its tools run: its step-finish (with its
   * tokens) comes only after them, so it ends where its stream did (its last tool call's end).
   */
  #answered(step, at) {
    const model = this.models.get(step);
    if (model?.running) this.#finish(model, 'ok', model.streamEnd ?? at);
  }

  /** Applies one event; true when the trace changed. */
  apply(type, event, at = Date.now()) {
    const now = new Date(at).toISOString();
    switch (type) {
      case 'step-start':
        this.models.set(
          event.step,
          this.#add({
            runId: this.runId,
            kind: 'model',
            name: this.model ?? 'model',
            step: event.step,
            startedAt: now,
            durationMs: 0,
            status: 'ok',
            running: true,
            text: '',
          }),
        );
        return true;
      case 'run-start':
        this.model = event.model;
        return false;
      case 'text-delta': {
        const model = this.models.get(event.step);
        if (!model) return false;
        if (model.firstTokenMs === undefined) model.firstTokenMs = at - Date.parse(model.startedAt);
        model.text += event.delta;
        model.preview = { output: brief(model.text, 240) };
        return true;
      }
      case 'model-retry': {
        const model = this.models.get(event.step);
        if (!model) return false;
        const { model: failed, attempt, reason, delayMs, next } = event;
        model.retries = [
          ...(model.retries ?? []),
          { model: failed, attempt, reason, delayMs, next, at: now },
        ];
        // After a failover the step is the model's that answers.
        model.name = next;
        return true;
      }
      case 'step-finish': {
        const model = this.models.get(event.step);
        if (!model) return false;
        model.usage = event.usage;
        model.finishReason = event.finishReason;
        if (model.running) this.#finish(model, 'ok', model.streamEnd ?? at);
        return true;
      }
      case 'tool-call-start':
        this.tools.set(
          event.id,
          this.#add({
            runId: this.runId,
            kind: 'tool',
            name: event.name,
            step: event.step,
            callId: event.id,
            startedAt: now,
            durationMs: 0,
            status: 'ok',
            running: true,
          }),
        );
        return true;
      case 'tool-call-end': {
        const model = this.models.get(event.step);
        if (model) model.streamEnd = at;
        const tool = this.tools.get(event.id);
        if (!tool) return false;
        tool.preview = { input: brief(event.input, 240) };
        return true;
      }
      case 'tool-result': {
        const tool = this.tools.get(event.call?.id);
        if (!tool) return false;
        this.#answered(event.step, at);
        const call = event.call;
        tool.preview = {
          ...tool.preview,
          input: brief(call.input, 240),
          ...(call.ok && call.output !== undefined ? { output: brief(call.output, 240) } : {}),
        };
        if (!call.ok && call.error) tool.error = call.error;
        this.#finish(tool, call.ok ? 'ok' : 'error', at);
        return true;
      }
      case 'compaction': {
        // Older turns summarized before the step's model call: drawn before that call, which starts after it.
        const model = this.models.get(event.step);
        const step = {
          runId: this.runId,
          kind: 'compaction',
          name: event.model,
          step: event.step,
          startedAt: model?.startedAt ?? now,
          durationMs: 0,
          status: 'ok',
          detail: {
            tokensBefore: event.tokensBefore,
            tokensAfter: event.tokensAfter,
            through: event.through,
          },
          preview: {
            output: `${event.through} messages summarized: ${event.tokensBefore} → ${event.tokensAfter} tokens`,
          },
        };
        this.#finish(step, 'ok', at);
        const place = model ? this.steps.indexOf(model) : -1;
        if (place === -1) this.#add(step);
        else {
          this.steps.splice(place, 0, step);
          this.steps.forEach((each, i) => {
            each.seq = i + 1;
          });
          model.startedAt = now;
        }
        return true;
      }
      case 'approval-request':
        this.#answered(event.step, at);
        this.pending.set(event.callId, event);
        return true;
      case 'approval-result': {
        const asked = this.pending.get(event.callId);
        this.pending.delete(event.callId);
        const tool = this.tools.get(event.callId);
        if (tool)
          tool.approval = {
            approved: event.status === 'approved',
            status: event.status,
            at: now,
            question: Boolean(asked?.question),
            reason: event.reason,
          };
        return true;
      }
      default:
        return false;
    }
  }
}
