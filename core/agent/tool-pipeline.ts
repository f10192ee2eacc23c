import type { Context } from '@opentelemetry/api';
import { didYouMean } from '../closest-name.ts';
import { errorMessage, HubosError } from '../errors.ts';
import type { Guardrail, GuardrailStage, GuardrailVerdictRecord } from '../guardrails/guardrail.ts';
import { GuardrailTripped, runGuardrails } from '../guardrails/run-guardrails.ts';
import { tripEvent } from '../guardrails/verdict-events.ts';
import { runWrapHook } from '../hook-utils.ts';
import type { KernelHooks, KernelToolCallContext } from '../hooks.ts';
import type { LanguageModel } from '../model/model.ts';
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
  /** Hears the arguments the call runs with, when a `tool-input` guardrail rewrote them (the run's record keeps those). */
  onInput?: (input: unknown) => void;
  /**
   * Hears the call's guardrail verdicts (`tool-input`, then `tool-output`) once it ran, when it has
   * guardrails and none tripped (a run's `tool-result` carries them). A trip is a `guardrail` event
   * through `emit`.
   */
  onVerdicts?: (verdicts: GuardrailVerdictRecord[]) => void;
  /** The calling agent's tool guardrails: checked after the config's `guardrails.tool`, which every call gets. */
  guardrails?: ToolGuardrails;
  /** The calling run's model: what a guardrail that asks a model asks unless told another. */
  model?: LanguageModel;
  /**
   * Tools a run gives its model of its own, outside the kernel's registry (`read_result`): a call
   * of one (also in `tools`) runs from here.
   * @internal
   */
  runTools?: Registry;
}

/** Tool guardrails by stage: on a call's arguments (`input`) and on its output (`output`). */
export interface ToolGuardrails {
  input: readonly Guardrail[];
  output: readonly Guardrail[];
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
  /** The config's `guardrails.tool`, checked on every call; undefined when it has none. */
  guardrails?: ToolGuardrails | undefined;
  /** The model a reference names, for guardrails that ask one. */
  resolveModel?: (ref: string) => LanguageModel;
}

const nothing = (): void => undefined;

/**
 * The one way a tool call runs, whoever makes it: the tool is looked up among those the caller
 * may use, the permission policy decides (`deny` refuses, `ask` waits for an approval), the
 * `tool-input` guardrails check the arguments, then the kernel's `beforeToolCall` and the calling
 * agent's, the kernel's `wrapToolCall` around the agent's around the handler, the `tool-output`
 * guardrails check its output, and after it `toolError` (agent's, then kernel's) for a failure and
 * `afterToolCall` (agent's, then kernel's) for every call. Never throws: every failure, a throwing
 * tap's included, is an error result the caller's model can read; but with `tripStops` a guardrail's
 * trip (an error result GUARDRAIL_TRIPPED for the hooks) is thrown, to stop the calling run.
 * @internal
 */
export async function runToolPipeline(
  deps: ToolPipelineDeps,
  request: ToolCallRequest,
  parent: object = activeContext(),
  tripStops = false,
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
  // Only a call with guardrails carries them: most have none.
  const guardrails = toolGuardrails(deps.guardrails, request.guardrails);
  const verdicts: GuardrailVerdictRecord[] = [];
  let tripped: HubosError | undefined;
  try {
    result = await decideAndRun(deps, request, ctx, guardrails, verdicts);
    if (result.ok && guardrails?.output.length)
      result = await checkOutput(deps, request, ctx, guardrails, result, verdicts);
  } catch (error) {
    // The run went to another instance: this call has no outcome here, and the run stops.
    if (error instanceof RunHandedOver) {
      span.end();
      throw error;
    }
    if (HubosError.is(error, 'GUARDRAIL_TRIPPED')) {
      tripped = error;
      result = { ok: false, error: { code: 'GUARDRAIL_TRIPPED', message: error.message } };
    }
    // A hook tap that throws fails this call, not the run.
    else result = { ok: false, error: { code: 'TOOL_FAILED', message: errorMessage(error) } };
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
  if (tripped && tripStops) throw tripped;
  if (!tripped && verdicts.length > 0) request.onVerdicts?.(verdicts);
  return result;
}

/** The config's tool guardrails, then the calling agent's; undefined when neither has any. */
function toolGuardrails(
  global: ToolGuardrails | undefined,
  own: ToolGuardrails | undefined,
): ToolGuardrails | undefined {
  if (!own) return global;
  if (!global) return own;
  return { input: [...global.input, ...own.input], output: [...global.output, ...own.output] };
}

/**
 * Runs a tool stage's guardrails on `value`, their verdicts added to the call's `verdicts`; a trip
 * throws, told first as a `guardrail` event with the call's verdicts.
 */
async function checkTool(
  deps: ToolPipelineDeps,
  request: ToolCallRequest,
  ctx: KernelToolCallContext,
  guardrails: readonly Guardrail[],
  stage: GuardrailStage,
  value: unknown,
  verdicts: GuardrailVerdictRecord[],
): Promise<unknown> {
  const { run, call } = ctx;
  try {
    const outcome = await runGuardrails(guardrails, value, {
      stage,
      agent: run.agent,
      runId: run.runId,
      principal: run.principal,
      via: ctx.via,
      call: { id: call.id, name: call.name },
      signal: run.signal,
      ...(request.model ? { model: request.model } : {}),
      ...(deps.resolveModel ? { resolveModel: deps.resolveModel } : {}),
    });
    verdicts.push(...outcome.verdicts);
    return outcome.value;
  } catch (error) {
    if (error instanceof GuardrailTripped)
      request.emit?.(tripEvent(run.runId, ctx.step, stage, [...verdicts, ...error.verdicts], call.id));
    throw error;
  }
}

/** The output the model (or the caller) gets: a rewrite replaces it, rich parts and all. */
async function checkOutput(
  deps: ToolPipelineDeps,
  request: ToolCallRequest,
  ctx: KernelToolCallContext,
  guardrails: ToolGuardrails,
  result: Extract<ToolResult, { ok: true }>,
  verdicts: GuardrailVerdictRecord[],
): Promise<ToolResult> {
  const output = await checkTool(
    deps,
    request,
    ctx,
    guardrails.output,
    'tool-output',
    result.output,
    verdicts,
  );
  return output === result.output ? result : { ok: true, output };
}

async function decideAndRun(
  deps: ToolPipelineDeps,
  request: ToolCallRequest,
  ctx: KernelToolCallContext,
  guardrails: ToolGuardrails | undefined,
  verdicts: GuardrailVerdictRecord[],
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
  // Checked once allowed, before any hook or the handler: a rewrite is what they all get.
  if (guardrails?.input.length) {
    const input = await checkTool(deps, request, ctx, guardrails.input, 'tool-input', call.input, verdicts);
    if (input !== call.input) {
      ctx.call = { ...call, input };
      request.onInput?.(input);
    }
  }
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
  // The run's own tool only when it is the one the run offers, not a registered one of that name.
  const own =
    request.runTools?.has(call.name) && request.tools?.get(call.name) === request.runTools.get(call.name);
  const registry = own ? request.runTools! : deps.registry;
  try {
    return await executeTool(registry, call.name, call.input, {
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
