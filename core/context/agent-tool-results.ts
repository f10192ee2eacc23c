import type { AgentSpec } from '../agent/spec.ts';
import { HubosError } from '../errors.ts';
import type { Tool } from '../tools/tool.ts';
import type { ContextConfig } from './context-config.ts';
import { READ_RESULT_TOOL } from './read-result-tool.ts';
import { type ToolResultsLimits, toolResultsLimits } from './tool-results-config.ts';

/**
 * An agent's `context.toolResults` over the config's, with defaults; undefined when off. Throws
 * AGENT_INVALID when one of its own tools has the read tool's name, which its runs would be given.
 */
export function agentToolResults(
  spec: AgentSpec,
  tools: readonly Tool[],
  global: ContextConfig | undefined,
): ToolResultsLimits | undefined {
  const limits = toolResultsLimits(
    `agents.${spec.name}.context`,
    spec.context?.toolResults,
    global?.toolResults,
  );
  if (limits && tools.some((tool) => tool.name === READ_RESULT_TOOL))
    throw new HubosError(
      'AGENT_INVALID',
      `agent "${spec.name}" has a tool named "${READ_RESULT_TOOL}", the name of the tool its runs are given to read results too large for the model: rename that tool, or set agents.${spec.name}.context.toolResults to false`,
      { details: { agent: spec.name } },
    );
  return limits;
}
