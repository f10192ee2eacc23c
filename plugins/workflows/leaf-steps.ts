import {
  type AgentEvent,
  HubosError,
  type KernelView,
  type Policy,
  sessionKey,
  type Tool,
  type ToolCallContext,
  type Usage,
} from '../../core/index.ts';
import { abortable, didYouMean } from '../../core/internal.ts';
import type { StarsEvent, StarsRunResult } from '../stars/index.ts';
import { renderDeep, renderTemplate } from './template.ts';
import { stepInteraction } from './tool-interaction.ts';
import type {
  AgentStep,
  FromState,
  FunctionStep,
  StarsStep,
  ToolStep,
  WorkflowEvent,
  WorkflowState,
} from './types.ts';

/** A team a `stars` step can run (the stars plugin's `Stars`). */
export interface TeamLike {
  stream(task: string, options: { signal?: AbortSignal }): AsyncIterable<StarsEvent>;
}

/** What leaf steps reach: the kernel's agents, tools and policy, and the Stars teams. */
export interface StepDeps {
  kernel: KernelView;
  /** The config's permission policy, built once per workflow. */
  policy: Policy;
  team(name: string): TeamLike;
}

export interface LeafContext {
  deps: StepDeps;
  workflow: string;
  runId: string;
  /** Who the run is for (the run's `owner`), when its caller said. */
  principal?: string;
  key: string;
  signal: AbortSignal;
  attempt: number;
  /** Calls whose stored approval is adopted rather than asked anew (see ExecContext). */
  askedBefore?: ReadonlySet<string>;
  emit(event: WorkflowEvent): void;
  /** Where the step's token usage goes (kept across attempts, failed ones included). */
  addUsage(usage: Partial<Usage>): void;
}

type Leaf = AgentStep | ToolStep | FunctionStep | StarsStep;

/** Runs one attempt of a leaf step. Throws on failure; the caller retries, records and reports. */
export function runLeaf(step: Leaf, state: WorkflowState, ctx: LeafContext): Promise<unknown> {
  switch (step.kind) {
    case 'agent':
      return runAgent(step, state, ctx);
    case 'tool':
      return runTool(step, state, ctx);
    case 'function':
      return runFunction(step, state, ctx);
    case 'stars':
      return runStars(step, state, ctx);
  }
}

const where = (ctx: LeafContext, id: string) => `workflow "${ctx.workflow}" step "${id}"`;

async function resolveText(value: FromState<string, unknown>, state: WorkflowState, at: string) {
  const text = typeof value === 'function' ? await value(state) : renderTemplate(value, state, at);
  if (typeof text !== 'string')
    throw new HubosError('RUN_FAILED', `${at}: the input function must return a string`);
  return text;
}

async function runAgent(step: AgentStep, state: WorkflowState, ctx: LeafContext): Promise<unknown> {
  const at = where(ctx, step.id);
  const agent = ctx.deps.kernel.getAgent(step.agent);
  if (!agent) {
    const known =
      ctx.deps.kernel
        .listAgents()
        .map((a) => a.id)
        .join(', ') || 'none';
    throw new HubosError(
      'AGENT_NOT_FOUND',
      `${at}: no agent "${step.agent}"${didYouMean(
        step.agent,
        ctx.deps.kernel.listAgents().map((a) => a.id),
      )} (agents: ${known})`,
    );
  }
  const message = await resolveText(step.input, state, at);
  const named = step.sessionId === undefined ? undefined : await resolveText(step.sessionId, state, at);
  // The owner's own session, as HubOS keeps it: another caller naming the same id gets a conversation of its own.
  const sessionId =
    named !== undefined && ctx.principal !== undefined ? sessionKey(ctx.principal, named) : named;
  const result = await agent.run(message, {
    signal: ctx.signal,
    ...(sessionId !== undefined ? { sessionId } : {}),
    // The run's owner: its approvals are that caller's, and its tools see it as `tc.principal`.
    ...(ctx.principal !== undefined ? { principal: ctx.principal } : {}),
    via: 'workflow',
    onEvent: (event: AgentEvent) => ctx.emit({ ...event, stepId: step.id, workflowRunId: ctx.runId }),
  });
  ctx.addUsage(result.usage);
  if (result.status === 'cancelled')
    throw ctx.signal.reason ?? new HubosError('RUN_CANCELLED', `${at}: cancelled`);
  return result.text;
}

async function runTool(step: ToolStep, state: WorkflowState, ctx: LeafContext): Promise<unknown> {
  const at = where(ctx, step.id);
  const { kernel, policy } = ctx.deps;
  const tool = kernel.registry.get(step.tool);
  const raw =
    typeof step.input === 'function' ? await step.input(state) : renderDeep(step.input ?? {}, state, at);
  const call = toolCall(ctx, tool, raw);
  const { interaction, end } = stepInteraction(step, ctx, call);
  try {
    // The kernel's pipeline, as an agent's call: the config's policy (an `ask` waits for an
    // approval, its events tagged with the step), then the kernel's tool-call hooks.
    const result = await abortable(
      kernel.tools.call({
        call: call.call,
        run: call.run,
        policy,
        agentId: `workflow:${ctx.workflow}`,
        addUsage: ctx.addUsage,
        emit: (event) => ctx.emit({ ...event, stepId: step.id, workflowRunId: ctx.runId }),
        progress: interaction.progress,
        interaction,
      }),
      ctx.signal,
    );
    if (!result.ok) throw toolFailure(result.error, at);
    return result.output;
  } finally {
    end();
  }
}

/** The step's tool call as the pipeline and its questions see it: one id per attempt. */
function toolCall(ctx: LeafContext, tool: Tool, input: unknown): ToolCallContext {
  return {
    run: {
      runId: ctx.runId,
      agent: `workflow:${ctx.workflow}`,
      sessionId: undefined,
      ...(ctx.principal !== undefined ? { principal: ctx.principal } : {}),
      via: 'workflow',
      input: '',
      signal: ctx.signal,
      // A call an earlier instance asked about: its stored approval is the one to wait for.
      ...(ctx.askedBefore ? { resumedCalls: ctx.askedBefore } : {}),
    },
    step: 0,
    call: { id: `${ctx.key}#${ctx.attempt}`, name: tool.name, input },
  };
}

/** A refused or failed call as the step's error (a denial reads as the tool failing for the step). */
function toolFailure(error: { code: string; message: string }, at: string): HubosError {
  const code = error.code === 'TOOL_DENIED' ? 'TOOL_FAILED' : (error.code as 'TOOL_FAILED');
  return new HubosError(code, `${at}: ${error.message}`);
}

async function runFunction(step: FunctionStep, state: WorkflowState, ctx: LeafContext): Promise<unknown> {
  return abortable(
    Promise.resolve().then(() =>
      step.run(state, {
        signal: ctx.signal,
        attempt: ctx.attempt,
        addUsage: ctx.addUsage,
        ...(ctx.principal !== undefined ? { principal: ctx.principal } : {}),
      }),
    ),
    ctx.signal,
  );
}

async function runStars(step: StarsStep, state: WorkflowState, ctx: LeafContext): Promise<unknown> {
  const at = where(ctx, step.id);
  const team = ctx.deps.team(step.team);
  const task = await resolveText(step.task, state, at);
  let result: StarsRunResult | undefined;
  const options = {
    signal: ctx.signal,
    ...(ctx.principal !== undefined ? { principal: ctx.principal } : {}),
  };
  for await (const event of team.stream(task, options)) {
    if (event.type === 'stars-finish') result = event.result;
    ctx.emit({ ...event, stepId: step.id, workflowRunId: ctx.runId });
  }
  if (!result) throw ctx.signal.reason ?? new HubosError('RUN_FAILED', `${at}: the team gave no result`);
  for (const member of Object.values(result.usage)) ctx.addUsage(member);
  if (result.status === 'cancelled')
    throw ctx.signal.reason ?? new HubosError('RUN_CANCELLED', `${at}: cancelled`);
  if (result.status === 'failed')
    throw new HubosError(
      'RUN_FAILED',
      `${at}: team "${step.team}" failed: ${result.error?.message ?? 'unknown error'}`,
    );
  return result.text;
}
