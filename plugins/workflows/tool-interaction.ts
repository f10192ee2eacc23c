import {
  type AgentEvent,
  HubosError,
  type LanguageModel,
  type Logger,
  type LogLevel,
  resolveModelSetting,
  sampleModel,
  type ToolCallContext,
  type ToolInteraction,
  toLanguageModel,
} from '../../core/index.ts';
import { elicitInRun } from '../../core/internal.ts';
import type { LeafContext } from './leaf-steps.ts';
import type { ToolStep } from './types.ts';

/** How a tool step serves its tool's context (see `stepInteraction`). */
export type StepInteraction = Required<ToolInteraction> & { progress(data: unknown): void };

/**
 * What a tool step's tool reaches through its context: `tc.log` and `tc.progress` become events of
 * the step (and the log the app's logger too); `tc.elicit` is an approval request of the workflow
 * run carrying the question, answered where its approvals are (the page, REST — the CLI declines);
 * `tc.sample` asks the config's top-level `model`, the one agents use when they name none. A
 * workflow has no model of its own: without that `model`, sampling rejects SAMPLING_UNAVAILABLE.
 * `end()` stops the events once the call has returned.
 */
export function stepInteraction(
  step: ToolStep,
  ctx: LeafContext,
  call: ToolCallContext,
): { interaction: StepInteraction; end(): void } {
  const { kernel, policy } = ctx.deps;
  const where = `workflow "${ctx.workflow}" step "${step.id}" (tool ${step.tool})`;
  let running = true;
  let asked = 0;
  const emit = (event: AgentEvent) => ctx.emit({ ...event, stepId: step.id, workflowRunId: ctx.runId });
  const ids = { runId: ctx.runId, step: 0, callId: call.call.id, tool: step.tool };
  const interaction: StepInteraction = {
    progress: (data) => {
      if (running) emit({ type: 'tool-progress', ...ids, data });
    },
    log: (level, message, data) => {
      if (!running) return;
      emit({ type: 'tool-log', ...ids, level, message, ...(data !== undefined ? { data } : {}) });
      logAt(kernel.logger, level, `${where}: ${message}`);
    },
    elicit: (request, signal) =>
      elicitInRun(
        { policy, approvals: kernel.approvals, registry: kernel.registry },
        call,
        ++asked,
        request,
        signal,
        emit,
      ),
    sample: async (request, signal) => {
      const { result, usage } = await sampleModel(configModel(kernel, where), request, signal);
      ctx.addUsage(usage);
      return result;
    },
  };
  return {
    interaction,
    end: () => {
      running = false;
    },
  };
}

/** The config's top-level `model`: what a workflow's tools sample. */
function configModel(kernel: LeafContext['deps']['kernel'], where: string): LanguageModel {
  const ref = kernel.config.model;
  if (ref === undefined)
    throw new HubosError(
      'SAMPLING_UNAVAILABLE',
      `${where}: a workflow has no model of its own, and the config names none: set the top-level "model" in agent.config.ts, or call the tool from an agent step (its agent's model answers)`,
    );
  try {
    return resolveModelSetting(
      ref,
      (one) => (typeof one === 'string' ? kernel.models.resolve(one) : toLanguageModel(one)),
      'the top-level "model"',
    );
  } catch (error) {
    throw new HubosError(
      'SAMPLING_UNAVAILABLE',
      `${where}: the config's model "${String(ref)}" cannot answer: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/** The app's logger at the nearest of its four levels. */
function logAt(logger: Logger, level: LogLevel, message: string): void {
  if (level === 'debug') logger.debug(message);
  else if (level === 'info' || level === 'notice') logger.info(message);
  else if (level === 'warning') logger.warn(message);
  else logger.error(message);
}
