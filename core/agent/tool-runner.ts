import type { Context } from '@opentelemetry/api';
import { errorMessage } from '../errors.ts';
import { runWrapHook } from '../hook-utils.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import type { Store } from '../store/store.ts';
import { executeTool, type ToolResult } from '../tools/execute.ts';
import type { Registry } from '../tools/registry.ts';
import type { Tool } from '../tools/tool.ts';
import type { AgentHooks, RunContext, ToolCallContext } from './agent-hooks.ts';
import type { AgentEvent, ToolCallRecord } from './events.ts';
import type { Message, ToolCall, Usage } from './messages.ts';
import { type GateDeps, gateToolCall } from './permission-gate.ts';
import { failSpan, startSpan } from './telemetry.ts';

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
    ? { ...ctx.call, ok: true, output: result.output, durationMs }
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
        message: `no tool named "${ctx.call.name}" is available (available: ${known})`,
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
  if (decision && 'result' in decision) return { ok: true, output: decision.result };
  return runWrapHook(deps.hooks.wrapToolCall, ctx, async (inner) => {
    const { run, step, call } = inner;
    let running = true;
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
      });
    } finally {
      running = false;
    }
  });
}

function toMessage(record: ToolCallRecord): Message {
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
