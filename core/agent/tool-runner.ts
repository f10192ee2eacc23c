import type { Context } from '@opentelemetry/api';
import { didYouMean } from '../closest-name.ts';
import { errorMessage } from '../errors.ts';
import { runWrapHook } from '../hook-utils.ts';
import type { LanguageModel } from '../model/model.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import type { Store } from '../store/store.ts';
import { contentToText, isToolOutput } from '../tools/content.ts';
import { executeTool, type ToolResult } from '../tools/execute.ts';
import type { ToolInteraction } from '../tools/interaction.ts';
import type { Registry } from '../tools/registry.ts';
import type { Tool } from '../tools/tool.ts';
import type { AgentHooks, RunContext, ToolCallContext } from './agent-hooks.ts';
import { elicitInRun } from './elicit.ts';
import type { AgentEvent, ToolCallRecord } from './events.ts';
import type { Message, ToolCall, Usage } from './messages.ts';
import { type GateDeps, gateToolCall } from './permission-gate.ts';
import { sampleModel } from './sample.ts';
import { failSpan, startSpan } from './telemetry.ts';

/** How a run's tools reach a human and a model when not through the run itself (see `RunOptions.interaction`). */
export type RunInteraction = Pick<ToolInteraction, 'elicit' | 'sample'>;

export interface ToolRunnerDeps extends GateDeps {
  hooks: AgentHooks;
  registry: Registry;
  tools: ReadonlyMap<string, Tool>;
  agentId: string;
  sandbox: Sandbox;
  store: Store;
  metadata: Record<string, unknown>;
  /** Where tokens a handler reports (`tc.addUsage`) go: the run's usage. */
  addUsage?: (usage: Partial<Usage>) => void;
  /** The run's model: it answers the run's tools' `tc.sample`. */
  model?: LanguageModel;
  /** Where the run's tools' questions go instead of the run's own approvals and model (`RunOptions.interaction`). */
  interaction?: RunInteraction;
}

/**
 * Runs the tool calls of one model turn: concurrently, except tools that opt out
 * (`concurrent: false`), which run alone in turn. Every failure becomes an error result the
 * model can read; nothing here throws. Emits approval events and each call's `tool-result`.
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
    const record = await runToolCall(deps, { run, step, call }, parent, emit);
    records.set(call.id, record);
    emit({ type: 'tool-result', runId: run.runId, step, call: record });
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
  ctx: ToolCallContext,
  parent: Context,
  emit: (event: AgentEvent) => void,
): Promise<ToolCallRecord> {
  const started = performance.now();
  const { span } = startSpan(
    `execute_tool ${ctx.call.name}`,
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': ctx.call.name,
      'gen_ai.tool.call.id': ctx.call.id,
    },
    parent,
  );
  let result: ToolResult;
  try {
    result = await decideAndRun(deps, ctx, emit);
  } catch (error) {
    // A hook tap that throws fails this call, not the run.
    result = { ok: false, error: { code: 'TOOL_FAILED', message: errorMessage(error) } };
  }
  if (!result.ok) {
    failSpan(span, Object.assign(new Error(result.error.message), { name: result.error.code }));
    if (deps.hooks.toolError.isUsed())
      await deps.hooks.toolError.promise({ ...ctx, error: result.error }).catch(() => undefined);
  }
  span.end();
  if (deps.hooks.afterToolCall.isUsed())
    await deps.hooks.afterToolCall.promise({ ...ctx, result }).catch(() => undefined);
  const durationMs = Math.round(performance.now() - started);
  return result.ok
    ? {
        ...ctx.call,
        ok: true,
        output: result.output,
        ...(result.content ? { content: result.content } : {}),
        durationMs,
      }
    : { ...ctx.call, ok: false, error: result.error, durationMs };
}

async function decideAndRun(
  deps: ToolRunnerDeps,
  ctx: ToolCallContext,
  emit: (event: AgentEvent) => void,
): Promise<ToolResult> {
  const tool = deps.tools.get(ctx.call.name);
  if (!tool) {
    const known = [...deps.tools.keys()].join(', ') || 'none';
    return {
      ok: false,
      error: {
        code: 'TOOL_NOT_FOUND',
        message: `no tool named "${ctx.call.name}" is available${didYouMean(ctx.call.name, deps.tools.keys())} (available: ${known})`,
      },
    };
  }
  if (typeof ctx.call.input === 'string') {
    return {
      ok: false,
      error: {
        code: 'TOOL_INPUT_INVALID',
        message: `the arguments for "${ctx.call.name}" are not valid JSON: ${ctx.call.input.slice(0, 200)}. Send a JSON object.`,
      },
    };
  }
  // The config's policy comes before plugins' hooks: none of them can run a refused call.
  const refused = await gateToolCall(deps, ctx, tool, emit);
  if (refused) return refused;
  const decision = deps.hooks.beforeToolCall.isUsed()
    ? await deps.hooks.beforeToolCall.promise(ctx)
    : undefined;
  if (decision && 'deny' in decision) {
    return {
      ok: false,
      error: { code: 'TOOL_DENIED', message: `the call to "${ctx.call.name}" was denied: ${decision.deny}` },
    };
  }
  if (decision && 'result' in decision) return hookResult(decision.result);
  return runWrapHook(deps.hooks.wrapToolCall, ctx, async (inner) => {
    const { run, step, call } = inner;
    let running = true;
    let asked = 0;
    const { model, addUsage, interaction } = deps;
    try {
      return await executeTool(deps.registry, call.name, call.input, {
        signal: run.signal,
        agentId: deps.agentId,
        sandbox: deps.sandbox,
        store: deps.store,
        metadata: deps.metadata,
        runId: run.runId,
        callId: call.id,
        ...(run.principal !== undefined ? { principal: run.principal } : {}),
        ...(deps.addUsage ? { addUsage: deps.addUsage } : {}),
        // Progress after the handler returned would follow the call's result: dropped.
        progress: (data) => {
          if (running)
            emit({ type: 'tool-progress', runId: run.runId, step, callId: call.id, tool: call.name, data });
        },
        log: (level, message, data) => {
          if (running)
            emit({
              type: 'tool-log',
              runId: run.runId,
              step,
              callId: call.id,
              tool: call.name,
              level,
              message,
              ...(data !== undefined ? { data } : {}),
            });
        },
        elicit:
          interaction?.elicit ??
          ((request, signal) => elicitInRun(deps, inner, ++asked, request, signal, emit)),
        ...(interaction?.sample
          ? { sample: interaction.sample }
          : model
            ? {
                sample: async (request, signal) => {
                  const { result, usage } = await sampleModel(model, request, signal);
                  addUsage?.(usage);
                  return result;
                },
              }
            : {}),
      });
    } finally {
      running = false;
    }
  });
}

/** What a `beforeToolCall` tap answered instead of the tool: a rich result (`toolOutput`) keeps its parts. */
function hookResult(result: unknown): ToolResult {
  if (!isToolOutput(result) || !Array.isArray(result.content)) return { ok: true, output: result };
  const content = [...result.content];
  return { ok: true, output: result.structuredContent ?? contentToText(content), content };
}

function toMessage(record: ToolCallRecord): Message {
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
