import type { Context } from '@opentelemetry/api';
import { HubosError } from '../errors.ts';
import type { Guardrail, GuardrailVerdictRecord } from '../guardrails/guardrail.ts';
import { type OutputContext, OutputHold } from '../guardrails/output-hold.ts';
import { runWrapHook } from '../hook-utils.ts';
import { type FinishReason, type LanguageModel, type ModelRequest, modelRefOf } from '../model/model.ts';
import type { AgentHooks, ModelCallContext, ModelResponse } from './agent-hooks.ts';
import type { AgentEvent } from './events.ts';
import { addUsage, emptyUsage, type ToolCall } from './messages.ts';
import { inputMessages, outputMessages, textParts } from './span-content.ts';
import { contentFor, failSpan, SPAN_KIND, startSpan } from './telemetry.ts';

type Emit = (event: AgentEvent) => void;

/** The run's output guardrails, what their checks are told of the run, and who hears their verdicts. */
export interface OutputCheck {
  guardrails: readonly Guardrail[];
  ctx: OutputContext;
  /** A model call's verdicts, one per guardrail, once its answer was checked (or tripped). */
  onVerdicts: (verdicts: GuardrailVerdictRecord[]) => void;
}

/**
 * One model call of the loop: hooks around it, its stream turned into events and one assistant
 * message. With `output` guardrails, its text reaches `emit` (and the message) only as they let it
 * through: what `wrapModelCall` and `afterModelCall` see is the text as released.
 */
export async function callModel(
  hooks: AgentHooks,
  model: LanguageModel,
  ctx: ModelCallContext,
  emit: Emit,
  parent: Context,
  output?: OutputCheck,
): Promise<ModelResponse> {
  if (hooks.beforeModelCall.isUsed()) await hooks.beforeModelCall.promise(ctx);
  const { span } = startSpan(
    `chat ${model.modelId || model.provider}`,
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': model.provider,
      'gen_ai.request.model': model.modelId,
      ...(ctx.request.maxTokens ? { 'gen_ai.request.max_tokens': ctx.request.maxTokens } : {}),
      ...(ctx.request.temperature !== undefined
        ? { 'gen_ai.request.temperature': ctx.request.temperature }
        : {}),
    },
    parent,
    SPAN_KIND.CLIENT, // a call to a model service, per the GenAI conventions
  );
  if (contentFor(span)) {
    span.setAttribute('gen_ai.input.messages', inputMessages(ctx.request.messages));
    if (ctx.request.system) span.setAttribute('gen_ai.system_instructions', textParts(ctx.request.system));
  }
  try {
    const response = await runWrapHook(hooks.wrapModelCall, ctx, (inner) =>
      consume(model, inner, emit, output),
    );
    span.setAttributes({
      'gen_ai.usage.input_tokens': response.usage.inputTokens,
      'gen_ai.usage.output_tokens': response.usage.outputTokens,
      'gen_ai.response.finish_reasons': [response.finishReason],
    });
    if (contentFor(span))
      span.setAttribute('gen_ai.output.messages', outputMessages(response.message, response.finishReason));
    if (hooks.afterModelCall.isUsed()) await hooks.afterModelCall.promise({ ...ctx, response });
    return response;
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

async function consume(
  model: LanguageModel,
  ctx: ModelCallContext,
  emit: Emit,
  output: OutputCheck | undefined,
): Promise<ModelResponse> {
  const { runId } = ctx.run;
  const step = ctx.step;
  let text = '';
  // Made only for a run with output guardrails: the others stream as the model does.
  const hold =
    output &&
    new OutputHold(
      output.guardrails,
      output.ctx,
      (delta) => emit({ type: 'text-delta', runId, step, delta }),
      output.onVerdicts,
    );
  const toolCalls: ToolCall[] = [];
  let finishReason: FinishReason | undefined;
  let usage = emptyUsage();
  // Retries and failovers the model reports become events (and the step's trace).
  const onRetry: ModelRequest['onRetry'] = (retry) =>
    emit({
      type: 'model-retry',
      runId,
      step,
      model: retry.model ?? modelRefOf(model),
      attempt: retry.attempt,
      reason: retry.reason,
      delayMs: Math.round(retry.delayMs),
      next: retry.next ?? retry.model ?? modelRefOf(model),
    });
  for await (const chunk of model.stream({ ...ctx.request, onRetry })) {
    switch (chunk.type) {
      case 'text-delta':
        if (hold) await hold.push(chunk.delta);
        else {
          text += chunk.delta;
          emit({ type: 'text-delta', runId, step, delta: chunk.delta });
        }
        break;
      case 'tool-call-start':
        emit({ type: 'tool-call-start', runId, step, id: chunk.id, name: chunk.name });
        break;
      case 'tool-call-delta':
        emit({ type: 'tool-call-args', runId, step, id: chunk.id, delta: chunk.delta });
        break;
      case 'tool-call':
        toolCalls.push({ id: chunk.id, name: chunk.name, input: chunk.input });
        emit({ type: 'tool-call-end', runId, step, id: chunk.id, name: chunk.name, input: chunk.input });
        break;
      case 'finish':
        finishReason = chunk.finishReason;
        usage = addUsage(usage, chunk.usage);
        break;
    }
  }
  ctx.run.signal.throwIfAborted();
  if (finishReason === undefined) {
    throw new HubosError(
      'MODEL_RESPONSE_INVALID',
      `${model.provider}: the response ended without a finish reason`,
    );
  }
  if (hold) text = await hold.end();
  // Some servers say "stop" while asking for tools: the calls decide.
  if (toolCalls.length > 0) finishReason = 'tool-calls';
  return {
    message: { role: 'assistant', content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) },
    finishReason,
    usage,
  };
}
