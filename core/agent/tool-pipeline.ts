import type { Context } from '@opentelemetry/api';
import { didYouMean } from '../closest-name.ts';
import { errorMessage } from '../errors.ts';
import { runWrapHook } from '../hook-utils.ts';
import type { KernelHooks, KernelToolCallContext } from '../hooks.ts';
import type { Policy } from '../permissions.ts';
import { RunHandedOver } from '../runs/run-handed-over.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import type { Store } from '../store/store.ts';
import { contentToText, isToolOutput } from '../tools/content.ts';
import { executeTool, type ToolResult } from '../tools/execute.ts';
import type { ToolInteraction } from '../tools/interaction.ts';
import type { Registry } from '../tools/registry.ts';
import type { Tool } from '../tools/tool.ts';
import type { AgentHooks, RunContext, ToolCallDecision } from './agent-hooks.ts';
import type { Approvals } from './approvals.ts';
import { elicitInRun } from './elicit.ts';
import type { AgentEvent } from './events.ts';
import type { ToolCall, Usage } from './messages.ts';
import { gateToolCall, type ToolPermission } from './permission-gate.ts';
import { contentJson } from './span-content.ts';
import { activeContext, contentFor, failSpan, startSpan } from './telemetry.ts';

/** One tool call, as its caller hands it to `kernel.tools.call()`. */
export interface ToolCallRequest {
  /** The call: its id (unique in its run), the tool's name, and its input (a string: arguments that were not JSON). */
  call: ToolCall;
  /**
   * The run it belongs to: an agent's, a workflow's, or one made for the call (an MCP `tools/call`).
   * Its `principal` and `via` say for whom the call is and where it came from (`direct` if unsaid).
   */
  run: RunContext;
  /** The model turn that made the call (0 outside an agent's loop). */
  step?: number;
  /** The tools the caller may call (an agent's own); default: every registered tool. */
  tools?: ReadonlyMap<string, Tool>;
  /** The permission policy (an agent's: its own rules, then the config's); default: the config's. */
  policy?: Policy;
  /** The calling agent's hooks: they run inside the kernel's (see `KernelHooks.beforeToolCall`). */
  agentHooks?: AgentHooks;
  /**
   * Hears the call's events: `approval-request` / `approval-result` while an `ask` waits (a caller
   * may relay the request to its human and decide it), and `tool-progress` / `tool-log` when the
   * caller gives no `progress` / `interaction.log` of its own.
   */
  emit?: (event: AgentEvent) => void;
  /** See `GateDeps.approvalUnavailable`: an `ask` is refused at once, saying this. */
  approvalUnavailable?: string;
  /** `tc.agentId` (default: the run's agent). */
  agentId?: string;
  /** `tc.metadata`. */
  metadata?: Record<string, unknown>;
  /** `tc.addUsage`: where tokens the handler spends go. */
  addUsage?: (usage: Partial<Usage>) => void;
  /** `tc.progress` (default: a `tool-progress` event through `emit`). */
  progress?: (data: unknown) => void;
  /**
   * `tc.log`, `tc.elicit`, `tc.sample`. Without `elicit`, the tool's questions are approval requests
   * of the run (through `emit`); without `log`, `tool-log` events; without `sample`, none is offered.
   */
  interaction?: ToolInteraction;
  /** Hears what the permission policy said of the call, when a rule of it matched (the run's steps keep it). */
  onPermission?: (verdict: ToolPermission) => void;
}

/**
 * Runs one call through the pipeline; `parent`: the OpenTelemetry `Context` its span belongs to
 * (typed loosely, so that no declaration of the package names OpenTelemetry's types).
 * @internal
 */
export type RunToolCall = (request: ToolCallRequest, parent?: object) => Promise<ToolResult>;

/** What the pipeline reaches of the kernel. @internal */
export interface ToolPipelineDeps {
  hooks: Pick<KernelHooks, 'beforeToolCall' | 'wrapToolCall' | 'afterToolCall' | 'toolError'>;
  registry: Registry;
  approvals: Approvals;
  sandbox: Sandbox;
  store: Store;
  /** The config's policy: for calls that bring none. */
  policy: () => Policy;
  /** Told when a tap of `afterToolCall` or `toolError` fails (the call's result stands). */
  onHookError?: (hook: string, error: unknown) => void;
}

const nothing = (): void => undefined;

/**
 * The one way a tool call runs, whoever makes it: the tool is looked up among those the caller
 * may use, the permission policy decides (`deny` refuses, `ask` waits for an approval), then the
 * kernel's `beforeToolCall` and the calling agent's, the kernel's `wrapToolCall` around the
 * agent's around the handler, and after it `toolError` (agent's, then kernel's) for a failure and
 * `afterToolCall` (agent's, then kernel's) for every call. Never throws: every failure, a throwing
 * tap's included, is an error result the caller's model can read.
 * @internal
 */
export async function runToolPipeline(
  deps: ToolPipelineDeps,
  request: ToolCallRequest,
  parent: object = activeContext(),
): Promise<ToolResult> {
  const { run, call, agentHooks } = request;
  const ctx: KernelToolCallContext = {
    run,
    step: request.step ?? 0,
    call,
    runId: run.runId,
    principal: run.principal,
    via: run.via ?? 'direct',
  };
  const { span } = startSpan(
    `execute_tool ${call.name}`,
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.name,
      'gen_ai.tool.call.id': call.id,
    },
    parent as Context,
  );
  if (contentFor(span)) span.setAttribute('gen_ai.tool.call.arguments', contentJson(call.input));
  let result: ToolResult;
  try {
    result = await decideAndRun(deps, request, ctx);
  } catch (error) {
    // The run went to another instance: this call has no outcome here, and the run stops.
    if (error instanceof RunHandedOver) {
      span.end();
      throw error;
    }
    // A hook tap that throws fails this call, not the run.
    result = { ok: false, error: { code: 'TOOL_FAILED', message: errorMessage(error) } };
  }
  const told = (hook: string) => (error: unknown) => deps.onHookError?.(hook, error);
  if (!result.ok) {
    failSpan(span, Object.assign(new Error(result.error.message), { name: result.error.code }));
    const failed = { ...ctx, error: result.error };
    if (agentHooks?.toolError.isUsed()) await agentHooks.toolError.promise(failed).catch(nothing);
    if (deps.hooks.toolError.isUsed()) await deps.hooks.toolError.promise(failed).catch(told('toolError'));
  }
  if (result.ok && contentFor(span)) span.setAttribute('gen_ai.tool.call.result', contentJson(result.output));
  span.end();
  const after = { ...ctx, result };
  if (agentHooks?.afterToolCall.isUsed()) await agentHooks.afterToolCall.promise(after).catch(nothing);
  if (deps.hooks.afterToolCall.isUsed())
    await deps.hooks.afterToolCall.promise(after).catch(told('afterToolCall'));
  return result;
}

async function decideAndRun(
  deps: ToolPipelineDeps,
  request: ToolCallRequest,
  ctx: KernelToolCallContext,
): Promise<ToolResult> {
  const { call } = ctx;
  const tool = findTool(deps.registry, request.tools, call.name);
  if (!tool) {
    const names = request.tools ? [...request.tools.keys()] : deps.registry.list().map((t) => t.name);
    return {
      ok: false,
      error: {
        code: 'TOOL_NOT_FOUND',
        message: `no tool named "${call.name}" is available${didYouMean(call.name, names)} (available: ${names.join(', ') || 'none'})`,
      },
    };
  }
  if (typeof call.input === 'string') {
    return {
      ok: false,
      error: {
        code: 'TOOL_INPUT_INVALID',
        message: `the arguments for "${call.name}" are not valid JSON: ${call.input.slice(0, 200)}. Send a JSON object.`,
      },
    };
  }
  const policy = request.policy ?? deps.policy();
  const gate = {
    policy,
    approvals: deps.approvals,
    registry: deps.registry,
    ...(request.approvalUnavailable !== undefined
      ? { approvalUnavailable: request.approvalUnavailable }
      : {}),
  };
  const emit = request.emit ?? nothing;
  // The config's policy comes before every hook: no tap can run a refused call.
  const refused = await gateToolCall(gate, ctx, tool, emit, request.onPermission);
  if (refused) return refused;
  // The kernel's taps first: a guard plugin refuses before any agent's tap sees the call.
  const decision =
    (await askBefore(deps.hooks.beforeToolCall, ctx)) ??
    (await askBefore(request.agentHooks?.beforeToolCall, ctx));
  if (decision && 'deny' in decision) {
    return {
      ok: false,
      error: { code: 'TOOL_DENIED', message: `the call to "${call.name}" was denied: ${decision.deny}` },
    };
  }
  if (decision && 'result' in decision) return hookResult(decision.result);
  const agentWrap = request.agentHooks?.wrapToolCall;
  const execute = (inner: KernelToolCallContext) => runHandler(deps, request, gate, inner);
  return runWrapHook(deps.hooks.wrapToolCall, ctx, (outer) =>
    agentWrap ? runWrapHook(agentWrap, outer, (inner) => execute({ ...outer, ...inner })) : execute(outer),
  );
}

function findTool(registry: Registry, tools: ReadonlyMap<string, Tool> | undefined, name: string) {
  if (tools) return tools.get(name);
  return registry.has(name) ? registry.get(name) : undefined;
}

type BeforeHook = KernelHooks['beforeToolCall'] | AgentHooks['beforeToolCall'];

async function askBefore(
  hook: BeforeHook | undefined,
  ctx: KernelToolCallContext,
): Promise<ToolCallDecision | undefined> {
  return hook?.isUsed() ? await hook.promise(ctx) : undefined;
}

/** The handler's run, with the tool context its caller gave (or the run's own events and questions). */
async function runHandler(
  deps: ToolPipelineDeps,
  request: ToolCallRequest,
  gate: Parameters<typeof elicitInRun>[0],
  ctx: KernelToolCallContext,
): Promise<ToolResult> {
  const { run, step, call } = ctx;
  const emit = request.emit ?? nothing;
  const interaction = request.interaction ?? {};
  let running = true;
  let asked = 0;
  const ids = { runId: run.runId, step, callId: call.id, tool: call.name };
  const progress = request.progress ?? ((data: unknown) => emit({ type: 'tool-progress', ...ids, data }));
  const log: NonNullable<ToolInteraction['log']> =
    interaction.log ??
    ((level, message, data) =>
      emit({ type: 'tool-log', ...ids, level, message, ...(data !== undefined ? { data } : {}) }));
  try {
    return await executeTool(deps.registry, call.name, call.input, {
      signal: run.signal,
      agentId: request.agentId ?? run.agent,
      sandbox: deps.sandbox,
      store: deps.store,
      metadata: request.metadata ?? {},
      runId: run.runId,
      callId: call.id,
      ...(run.principal !== undefined ? { principal: run.principal } : {}),
      ...(request.addUsage ? { addUsage: request.addUsage } : {}),
      // Progress and log lines after the handler returned would follow the call's result: dropped.
      progress: (data) => {
        if (running) progress(data);
      },
      log: (level, message, data) => {
        if (running) log(level, message, data);
      },
      elicit:
        interaction.elicit ?? ((question, signal) => elicitInRun(gate, ctx, ++asked, question, signal, emit)),
      ...(interaction.sample ? { sample: interaction.sample } : {}),
    });
  } finally {
    running = false;
  }
}

/** What a `beforeToolCall` tap answered instead of the tool: a rich result (`toolOutput`) keeps its parts. */
function hookResult(result: unknown): ToolResult {
  if (!isToolOutput(result) || !Array.isArray(result.content)) return { ok: true, output: result };
  const content = [...result.content];
  return { ok: true, output: result.structuredContent ?? contentToText(content), content };
}
