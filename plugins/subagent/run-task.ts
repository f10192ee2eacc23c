import {
  type Agent,
  type AgentEvent,
  type AgentSpec,
  HubosError,
  type KernelView,
  type RunResult,
  type ToolContext,
  type Usage,
} from '../../core/index.ts';
import { capAnswer } from './answer.ts';
import type { TaskLimits } from './options.ts';
import { DEFAULT_INSTRUCTIONS } from './subagent-type.ts';
import type { ResolvedSubagentType } from './subagent-types.ts';

/** What the calling agent gets back from a task that succeeded: the answer, not the steps. */
export interface TaskSummary {
  status: 'completed';
  /** The sub-agent's final answer, cut at `maxAnswerChars` with a marker. */
  answer: string;
  /** Tokens the sub-agent (and any sub-agents of its own) used; also added to the caller's run. */
  usage: Usage;
}

/** What `tool-progress` events of a `task` call carry: one event of the sub-agent's run. */
export interface ForwardedEvent {
  /** The `task` call's id in the calling run. */
  taskId: string;
  subagentType: string;
  /** The sub-agent's id (gone once the task is done). */
  agent: string;
  event: AgentEvent;
}

export interface TaskRequest {
  kernel: KernelView;
  /** The calling agent. */
  parent: Agent;
  type: ResolvedSubagentType;
  description: string;
  /** The sub-agent's id. */
  name: string;
  /** The sub-agent's nesting depth (1 for a top-level agent's sub-agents). */
  depth: number;
  limits: TaskLimits;
  /** The calling run's signal: aborting it cancels the sub-agent. */
  signal: AbortSignal;
  /** Who the calling run is for: the sub-agent's run is for them too (its approvals go to them). */
  principal?: string | undefined;
  taskId: string;
  /** The calling run and its `task` call: the sub-agent's steps are recorded on that run's trace. */
  caller?: { runId: string; callId?: string | undefined } | undefined;
  addUsage(usage: Partial<Usage>): void;
  progress(data: ForwardedEvent): void;
  /** The `task` call's `tc.elicit`: the sub-agent's tools ask the calling run's human through it. */
  elicit: ToolContext['elicit'];
  /** The `task` call's `tc.sample`: the sub-agent's tools sample the calling run's model through it. */
  sample: ToolContext['sample'];
}

/**
 * Runs one task: creates the sub-agent (an empty context: its instructions and the task, nothing
 * of the caller's history), runs it under the task's timeout and the caller's signal, adds its
 * usage to the caller's run and destroys it. Its tools' questions (`tc.elicit`) and samplings
 * (`tc.sample`) go through the `task` call's own, to the calling run's human and model. Resolves with the summary; anything but an answer
 * (failure, timeout, step limit, no answer) throws an error the model reads.
 */
export async function runTask(request: TaskRequest): Promise<TaskSummary> {
  const { kernel, limits, signal } = request;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new HubosError('RUN_CANCELLED', `the task timed out after ${limits.timeoutMs} ms`));
  }, limits.timeoutMs);
  // Aborted by the caller's signal, or by the timeout with a reason that says so.
  const runSignal = AbortSignal.any([signal, controller.signal]);
  let created = false;
  let result: RunResult;
  try {
    const agent = await kernel.createAgent(subagentSpec(request));
    created = true;
    result = await agent
      .run(request.description, {
        signal: runSignal,
        onEvent: forwarder(request),
        ...(request.principal !== undefined ? { principal: request.principal } : {}),
        via: 'subagent',
        // A question reaches whoever answers the calling run (withdrawn if the sub-agent stops first).
        interaction: {
          elicit: (question, signal) => request.elicit(question, { signal }),
          sample: (sampling, signal) => request.sample(sampling, { signal }),
        },
      })
      .catch((error: unknown) => {
        // A failed run still says what it used; anything else (a throwing hook) fails the task as it is.
        const failed = HubosError.is(error) ? (error.details.result as RunResult | undefined) : undefined;
        if (!failed) throw error;
        return failed;
      });
  } finally {
    clearTimeout(timer);
    if (created) await kernel.destroyAgent(request.name);
  }
  request.addUsage(result.usage);
  return summarize(request, result, timedOut);
}

function subagentSpec(request: TaskRequest): AgentSpec {
  const { parent, type, limits } = request;
  return {
    name: request.name,
    description: `${type.name} sub-agent of ${parent.id}`,
    instructions: type.instructions ?? DEFAULT_INSTRUCTIONS,
    model: type.model ?? parent.model,
    tools: type.inherit ? parent.tools.map((tool) => tool.name) : (type.tools ?? []),
    maxSteps: type.maxSteps ?? limits.maxSteps,
    // A delegate never escapes its caller's own permission rules.
    ...(parent.spec.permissions ? { permissions: parent.spec.permissions } : {}),
    // Nor its guardrails.
    ...(parent.spec.guardrails ? { guardrails: parent.spec.guardrails } : {}),
    // Its long tasks are compacted as its caller's conversations are.
    ...(parent.spec.context ? { context: parent.spec.context } : {}),
    internal: true,
    metadata: {
      subagent: { type: type.name, parent: parent.id, taskId: request.taskId, depth: request.depth },
    },
  };
}

function forwarder(request: TaskRequest): (event: AgentEvent) => void {
  const { taskId, name, type, limits, caller, kernel } = request;
  const child = {
    label: `task ${type.name}: ${request.description.slice(0, 60)}`,
    ...(caller?.callId !== undefined ? { callId: caller.callId } : {}),
  };
  return (event) => {
    // On the calling run's steps (a track of their own), whether or not its stream shows them.
    if (caller) kernel.runs.recordChild(caller.runId, child, event);
    if (!limits.forwardEvents && !isApprovalEvent(event)) return;
    request.progress({ taskId, subagentType: type.name, agent: name, event });
  };
}

/** An approval request or result, of the sub-agent or of one of its own (forwarded) sub-agents. */
function isApprovalEvent(event: AgentEvent): boolean {
  if (event.type === 'approval-request' || event.type === 'approval-result') return true;
  if (event.type !== 'tool-progress') return false;
  const inner = (event.data as Partial<ForwardedEvent> | undefined)?.event;
  return typeof inner === 'object' && inner !== null && isApprovalEvent(inner);
}

function summarize(request: TaskRequest, result: RunResult, timedOut: boolean): TaskSummary {
  const { type, limits, signal } = request;
  const who = `sub-agent "${type.name}"`;
  const steps = `${result.steps} step${result.steps === 1 ? '' : 's'}`;
  const partial = result.text.trim() ? `; its last text: ${capAnswer(result.text, 500)}` : '';
  if (signal.aborted) throw new HubosError('RUN_CANCELLED', `${who} was cancelled with the calling run`);
  if (result.status === 'cancelled') {
    const why = timedOut ? `timed out after ${limits.timeoutMs} ms` : 'was cancelled';
    throw new Error(`${who} ${why} (${steps})${partial}`);
  }
  if (result.status === 'failed') {
    const error = result.error!;
    // A tripwire stops the calling run too: the caller's model must not work around it.
    if (error.code === 'GUARDRAIL_TRIPPED')
      throw new HubosError('GUARDRAIL_TRIPPED', `${who}: ${error.message}`, {
        details: { subagent: type.name },
      });
    throw new Error(`${who} failed after ${steps}: ${error.message} [${error.code}]`);
  }
  if (result.stopReason === 'max-steps') {
    throw new Error(`${who} used all ${result.steps} of its steps without finishing${partial}`);
  }
  if (!result.text.trim()) throw new Error(`${who} finished (${steps}) without an answer`);
  return { status: 'completed', answer: capAnswer(result.text, limits.maxAnswerChars), usage: result.usage };
}
