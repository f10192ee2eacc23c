import {
  type RunToolCall,
  runToolPipeline,
  type ToolCallRequest,
  type ToolPipelineDeps,
} from './agent/tool-pipeline.ts';
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
   * Runs one call through the pipeline (see `ToolCallRequest`). Never throws: a refused, failed or
   * unknown call resolves with an error result (`TOOL_DENIED`, `TOOL_FAILED`, `TOOL_NOT_FOUND`,
   * `TOOL_INPUT_INVALID`) its caller can show to a model or a user.
   */
  call(request: ToolCallRequest): Promise<ToolResult> {
    return runToolPipeline(this.#deps(), request);
  }

  /**
   * The same call, its span a child of `parent` (an agent's run span): what agents are given.
   * @internal
   */
  readonly runner: RunToolCall = (request, parent) => runToolPipeline(this.#deps(), request, parent);
}
