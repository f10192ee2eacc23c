import type { Usage } from '../agent/messages.ts';
import { errorMessage } from '../errors.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import type { Store } from '../store/store.ts';
import type { Registry } from './registry.ts';

export interface ToolCallEnv {
  signal: AbortSignal;
  agentId: string;
  sandbox: Sandbox;
  store: Store;
  metadata?: Record<string, unknown>;
  /** Set by the agent loop: the run and the call, where usage goes, and where progress is sent. */
  runId?: string;
  callId?: string;
  /** Becomes `tc.principal`: who the run is for. */
  principal?: string;
  /** Becomes `tc.addUsage` (a no-op when not set). */
  addUsage?: (usage: Partial<Usage>) => void;
  /** Becomes `tc.progress` (a no-op when not set). */
  progress?: (data: unknown) => void;
}

// What `tc.addUsage` and `tc.progress` are outside an agent run: there is no run to tell.
const ignore = (): void => undefined;

/** What a tool call gives back to the model: its output, or an error it can read and correct. */
export type ToolResult =
  | { ok: true; output: unknown }
  | {
      ok: false;
      error: {
        code: 'TOOL_NOT_FOUND' | 'TOOL_INPUT_INVALID' | 'TOOL_FAILED' | 'TOOL_DENIED';
        message: string;
      };
    };

/**
 * Runs one tool call: validates the input (invalid input never reaches the handler),
 * applies schema defaults, then calls the handler. Never throws: failures become error results.
 */
export async function executeTool(
  registry: Registry,
  name: string,
  input: unknown,
  env: ToolCallEnv,
): Promise<ToolResult> {
  const checked = registry.checkInput(name, input);
  if (!checked.ok) {
    const code = registry.has(name) ? 'TOOL_INPUT_INVALID' : 'TOOL_NOT_FOUND';
    return { ok: false, error: { code, message: checked.message } };
  }
  const tool = registry.get(name);
  try {
    const output = await tool.handler(
      { signal: env.signal },
      {
        input: checked.input,
        agentId: env.agentId,
        sandbox: env.sandbox,
        store: env.store,
        metadata: env.metadata ?? {},
        ...(env.runId !== undefined ? { runId: env.runId } : {}),
        ...(env.principal !== undefined ? { principal: env.principal } : {}),
        ...(env.callId !== undefined ? { callId: env.callId } : {}),
        addUsage: env.addUsage ?? ignore,
        progress: env.progress ?? ignore,
      },
    );
    return { ok: true, output };
  } catch (error) {
    return {
      ok: false,
      error: { code: 'TOOL_FAILED', message: `tool "${name}" failed: ${errorMessage(error)}` },
    };
  }
}
