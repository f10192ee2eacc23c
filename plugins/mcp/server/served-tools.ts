import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Agent, KernelView, Tool } from '../../../core/index.ts';
import { matchesAnyGlob } from '../../../core/internal.ts';
import type { McpServeConfig } from '../config.ts';
import { ASK_AGENT_SCHEMA, askToolDescription, askToolName, servedAgents } from './ask-agent.ts';

/** One tool an MCP client sees: a registry tool, or an agent asked through `ask_<agent>`. */
export type ServedTool =
  | { kind: 'tool'; name: string; tool: Tool }
  | { kind: 'agent'; name: string; agent: Agent };

/**
 * What is served right now, by name: the registry's tools that `serve.tools` selects (all by
 * default), then the `ask_<agent>` tools of `serve.agents`. Computed per request, since tools
 * and agents come and go at run time; a registry tool wins over an agent tool of the same name.
 */
export function servedTools(
  kernel: KernelView,
  serve: McpServeConfig,
  mayUseAgent: (agent: Agent) => boolean = () => true,
): Map<string, ServedTool> {
  const served = new Map<string, ServedTool>();
  for (const tool of kernel.registry.list()) {
    if (!serve.tools || matchesAnyGlob(tool.name, serve.tools))
      served.set(tool.name, { kind: 'tool', name: tool.name, tool });
  }
  for (const agent of servedAgents(kernel, serve.agents)) {
    if (!mayUseAgent(agent)) continue;
    const name = askToolName(agent.id);
    if (!served.has(name)) served.set(name, { kind: 'agent', name, agent });
  }
  return served;
}

/** How `tools/list` describes it. */
export function describeServed(served: ServedTool): McpTool {
  if (served.kind === 'agent') {
    return {
      name: served.name,
      description: askToolDescription(served.agent),
      inputSchema: ASK_AGENT_SCHEMA as unknown as McpTool['inputSchema'],
    };
  }
  const { tool } = served;
  // The schemas exactly as declared (`$schema`, `$defs`, `additionalProperties` and all): they
  // are the ones that check the input and the structured output.
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as McpTool['inputSchema'],
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as McpTool['outputSchema'] } : {}),
  };
}
