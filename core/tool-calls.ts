import {
  type RunToolCall,
  runToolPipeline,
  type ToolCallRequest,
  type ToolPipelineDeps,
} from './agent/tool-pipeline.ts';
import { CALL_SURFACES } from './call-surface.ts';
import type { ToolResult } from './tools/execute.ts';

/**
 * `kernel.tools`: where every tool call runs, whoever makes it — an agent's loop, an MCP
 * `tools/call`, a workflow's tool step, a Stars member, a sub-agent. One pipeline: the permission
 * policy and its approvals, then the kernel's tool-call hooks around the calling agent's own.
 */
export class ToolCalls {
  readonly #deps: () => ToolPipelineDeps;

  /** @internal */
  constructor(deps: () => ToolPipelineDeps) {
    this.#deps = deps;
  }

  /**
   * Runs one call through the pipeline (see `ToolCallRequest`). Resolves with an error result
   * rather than throwing — for a refused, failed or unknown call (`TOOL_DENIED`, `TOOL_FAILED`,
   * `TOOL_NOT_FOUND`), a guardrail's trip (`GUARDRAIL_TRIPPED`: the call did not run, or its output
   * does not leave) and for a malformed request (`TOOL_INPUT_INVALID`, saying what is missing);
   * rejects only before the kernel is booted (`KERNEL_STATE`).
   */
  async call(request: ToolCallRequest): Promise<ToolResult> {
    const problem = requestProblem(request);
    if (problem) return { ok: false, error: { code: 'TOOL_INPUT_INVALID', message: problem } };
    return runToolPipeline(this.#deps(), request);
  }

  /**
   * The same call, its span a child of `parent` (an agent's run span): what agents are given. A
   * guardrail's trip is thrown here, not answered: it stops the agent's run.
   * @internal
   */
  readonly runner: RunToolCall = (request, parent) => runToolPipeline(this.#deps(), request, parent, true);
}

const SHAPE =
  'kernel.tools.call() takes { call: { id, name, input }, run: { runId, agent, sessionId, input, signal, principal?, via? }, … }';

/** What is wrong with a request from code outside the kernel, in words; undefined when nothing is. */
function requestProblem(request: ToolCallRequest): string | undefined {
  const { call, run } = (request ?? {}) as Partial<ToolCallRequest>;
  if (typeof call?.name !== 'string' || typeof call.id !== 'string')
    return `${SHAPE}: \`call\` needs a string \`id\` and \`name\``;
  if (typeof run?.runId !== 'string' || run.runId === '' || !(run.signal instanceof AbortSignal))
    return `${SHAPE}: \`run\` needs a non-empty \`runId\` and an AbortSignal \`signal\``;
  if (run.via !== undefined && !CALL_SURFACES.includes(run.via))
    return `${SHAPE}: \`run.via\` must be one of ${CALL_SURFACES.join(', ')}, got ${JSON.stringify(run.via)}`;
  return undefined;
}
