import type { Context } from '@opentelemetry/api';
import type { GuardrailVerdictRecord } from '../guardrails/guardrail.ts';
import type { LanguageModel } from '../model/model.ts';
import type { Policy } from '../permissions.ts';
import { contentToText } from '../tools/content.ts';
import type { ToolInteraction } from '../tools/interaction.ts';
import type { Registry } from '../tools/registry.ts';
import type { Tool } from '../tools/tool.ts';
import type { AgentHooks, RunContext } from './agent-hooks.ts';
import type { AgentEvent, ToolCallRecord } from './events.ts';
import type { Message, ToolCall, Usage } from './messages.ts';
import { sampleModel } from './sample.ts';
import type { RunToolCall, ToolGuardrails } from './tool-pipeline.ts';

/** How a run's tools reach a human and a model when not through the run itself (see `RunOptions.interaction`). */
export type RunInteraction = Pick<ToolInteraction, 'elicit' | 'sample'>;

export interface ToolRunnerDeps {
  /** The kernel's pipeline: every call of the run goes through it. */
  runToolCall: RunToolCall;
  hooks: AgentHooks;
  /** The agent's policy: its own rules, then the config's. */
  policy: Policy;
  tools: ReadonlyMap<string, Tool>;
  agentId: string;
  metadata: Record<string, unknown>;
  /** Where tokens a handler reports (`tc.addUsage`) go: the run's usage. */
  addUsage?: (usage: Partial<Usage>) => void;
  /** The run's model: it answers the run's tools' `tc.sample`. */
  model?: LanguageModel;
  /** Where the run's tools' questions go instead of the run's own approvals and model (`RunOptions.interaction`). */
  interaction?: RunInteraction;
  /** The agent's own tool guardrails (the kernel adds the config's). */
  guardrails?: ToolGuardrails;
  /** Tools the run gives its model outside the kernel's registry (see `ToolCallRequest.runTools`). */
  runTools?: Registry;
}

/**
 * Runs the tool calls of one model turn through the kernel's pipeline (`kernel.tools.call()`):
 * concurrently, except tools that opt out (`concurrent: false`), which run alone in turn. Every
 * failure becomes an error result the model can read; only a guardrail's trip (GUARDRAIL_TRIPPED)
 * or a run handed over throws, to stop the run. Emits approval events
 * and each call's `tool-result`, with the call's guardrail verdicts.
 */
export async function runToolCalls(
  deps: ToolRunnerDeps,
  run: RunContext,
  step: number,
  calls: readonly ToolCall[],
  parent: Context,
  emit: (event: AgentEvent) => void,
): Promise<{ records: ToolCallRecord[]; messages: Message[] }> {
  const records = new Map<string, ToolCallRecord>();
  const one = async (call: ToolCall) => {
    const { record, verdicts } = await runToolCall(deps, run, step, call, parent, emit);
    records.set(call.id, record);
    emit({
      type: 'tool-result',
      runId: run.runId,
      step,
      call: record,
      ...(verdicts ? { guardrails: verdicts } : {}),
    });
  };
  let batch: Promise<void>[] = [];
  for (const call of calls) {
    if (deps.tools.get(call.name)?.concurrent === false) {
      await Promise.all(batch);
      batch = [];
      await one(call);
    } else {
      batch.push(one(call));
    }
  }
  await Promise.all(batch);
  const ordered = calls.map((call) => records.get(call.id)!);
  return { records: ordered, messages: ordered.map(toMessage) };
}

async function runToolCall(
  deps: ToolRunnerDeps,
  run: RunContext,
  step: number,
  call: ToolCall,
  parent: Context,
  emit: (event: AgentEvent) => void,
): Promise<{ record: ToolCallRecord; verdicts?: GuardrailVerdictRecord[] }> {
  const started = performance.now();
  const { model, addUsage, interaction } = deps;
  const sample: ToolInteraction['sample'] =
    interaction?.sample ??
    (model
      ? async (request, signal) => {
          const { result, usage } = await sampleModel(model, request, signal);
          addUsage?.(usage);
          return result;
        }
      : undefined);
  let permission: ToolCallRecord['permission'];
  // The arguments as a guardrail rewrote them, if one did: what the run's record and trace keep.
  let input = call.input;
  let verdicts: GuardrailVerdictRecord[] | undefined;
  const result = await deps.runToolCall(
    {
      call,
      onPermission: (verdict) => {
        permission = verdict;
      },
      onInput: (rewritten) => {
        input = rewritten;
      },
      onVerdicts: (said) => {
        verdicts = said;
      },
      run,
      step,
      tools: deps.tools,
      policy: deps.policy,
      agentHooks: deps.hooks,
      emit,
      agentId: deps.agentId,
      metadata: deps.metadata,
      ...(addUsage ? { addUsage } : {}),
      ...(deps.guardrails ? { guardrails: deps.guardrails } : {}),
      ...(deps.runTools ? { runTools: deps.runTools } : {}),
      ...(model ? { model } : {}),
      interaction: {
        ...(interaction?.elicit ? { elicit: interaction.elicit } : {}),
        ...(sample ? { sample } : {}),
      },
    },
    parent,
  );
  const durationMs = Math.round(performance.now() - started);
  const said = permission ? { permission } : {};
  const made = input === call.input ? call : { ...call, input };
  const record: ToolCallRecord = result.ok
    ? {
        ...made,
        ok: true,
        output: result.output,
        ...(result.content ? { content: result.content } : {}),
        durationMs,
        ...said,
      }
    : { ...made, ok: false, error: result.error, durationMs, ...said };
  return verdicts ? { record, verdicts } : { record };
}

/** What the model reads of a call's outcome. */
export function toMessage(record: ToolCallRecord): Message {
  if (record.ok && record.content) {
    // The parts in words are what every provider can read; `parts` serves those that take more.
    const text = contentToText(record.content);
    return { role: 'tool', toolCallId: record.id, name: record.name, content: text, parts: record.content };
  }
  const content = record.ok
    ? typeof record.output === 'string'
      ? record.output
      : (JSON.stringify(record.output) ?? 'null')
    : `Error: ${record.error!.message}`;
  return {
    role: 'tool',
    toolCallId: record.id,
    name: record.name,
    content,
    ...(record.ok ? {} : { isError: true }),
  };
}
