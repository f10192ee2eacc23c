import type { Agent, AgentEvent, ApprovalRequestEvent, Tool } from '../../core/index.ts';
import { makeTool } from '../agent/helpers.ts';

/** A tool with declared permissions whose handler records its inputs. */
export function permittedTool(name: string, permissions: string[], output: unknown = `${name} ran`) {
  const inputs: unknown[] = [];
  const tool: Tool = makeTool(
    name,
    (_ctx, tc) => {
      inputs.push(tc.input);
      return output;
    },
    {
      permissions,
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    },
  );
  return { tool, inputs };
}

/**
 * Streams a run, calling `onRequest` for each approval request (without waiting for it, as a
 * UI would), and collects the events.
 */
export async function streamRun(
  agent: Agent,
  input: string,
  onRequest: (event: ApprovalRequestEvent) => unknown = () => undefined,
  options: { signal?: AbortSignal } = {},
) {
  const events: AgentEvent[] = [];
  for await (const event of agent.stream(input, options)) {
    events.push(event);
    if (event.type === 'approval-request') void onRequest(event);
  }
  const end = events.at(-1)!;
  if (end.type !== 'run-finish') throw new Error(`the run ended with ${end.type}`);
  return { events, result: end.result, types: events.map((event) => event.type) };
}
