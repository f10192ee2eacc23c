import type { Usage } from '../agent/messages.ts';
import { errorMessage, HubosError } from '../errors.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import type { Store } from '../store/store.ts';
import { contentProblem, contentToText, isToolOutput, type ToolContent } from './content.ts';
import type { ElicitRequest, SampleRequest, ToolInteraction } from './interaction.ts';
import type { Registry } from './registry.ts';

export interface ToolCallEnv extends ToolInteraction {
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

// What `tc.addUsage`, `tc.progress` and `tc.log` are where nobody listens.
const ignore = (): void => undefined;

const noElicit = (request: ElicitRequest): Promise<never> =>
  Promise.reject(
    new HubosError(
      'ELICITATION_UNAVAILABLE',
      `no human can be asked here ("${String(request?.message).slice(0, 80)}"): ask from an agent run, or over MCP from a client that supports elicitation`,
    ),
  );
const noSample = (_request: SampleRequest): Promise<never> =>
  Promise.reject(
    new HubosError(
      'SAMPLING_UNAVAILABLE',
      'no model is offered here: sample from an agent run (its model answers), or over MCP from a client that supports sampling',
    ),
  );

/**
 * What a tool call gives back to the model: its output, or an error it can read and correct.
 * A rich result (`toolOutput`) keeps its parts in `content`; `output` is then its structured data,
 * or the parts in words.
 */
export type ToolResult =
  | { ok: true; output: unknown; content?: ToolContent[] }
  | {
      ok: false;
      error: {
        code: 'TOOL_NOT_FOUND' | 'TOOL_INPUT_INVALID' | 'TOOL_FAILED' | 'TOOL_DENIED' | 'GUARDRAIL_TRIPPED';
        message: string;
      };
    };

/**
 * Runs one tool call: validates the input (invalid input never reaches the handler), applies
 * schema defaults (a Standard Schema's transforms too), then calls the handler. Never throws:
 * failures become error results.
 */
export async function executeTool(
  registry: Registry,
  name: string,
  input: unknown,
  env: ToolCallEnv,
): Promise<ToolResult> {
  // Awaited only when the schema answers asynchronously: otherwise the handler starts at once.
  const pending = registry.validateInput(name, input);
  const checked = pending instanceof Promise ? await pending : pending;
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
        log: env.log ?? ignore,
        elicit: env.elicit
          ? (request, options) => env.elicit!(request, callSignal(env.signal, options?.signal))
          : noElicit,
        sample: env.sample
          ? (request, options) => env.sample!(request, callSignal(env.signal, options?.signal))
          : noSample,
      },
    );
    return await checkedOutput(registry, name, output);
  } catch (error) {
    // A guardrail of a run the tool made (a sub-agent's) tripped: the run that called it stops too.
    if (HubosError.is(error, 'GUARDRAIL_TRIPPED')) throw error;
    return {
      ok: false,
      error: { code: 'TOOL_FAILED', message: `tool "${name}" failed: ${errorMessage(error)}` },
    };
  }
}

/** The call's own signal, or the tool's too when it gives one (to stop asking before the call ends). */
function callSignal(call: AbortSignal, own: AbortSignal | undefined): AbortSignal {
  return own ? AbortSignal.any([call, own]) : call;
}

/**
 * The handler's return value as a result: rich parts unpacked and checked, structured data checked
 * against `outputSchema` (a tool that declares one must return data that fits it, as MCP asks)
 * and passed on as the check gives it back (a Standard Schema's output value).
 */
async function checkedOutput(registry: Registry, name: string, output: unknown): Promise<ToolResult> {
  const rich = isToolOutput(output);
  let structured = rich ? output.structuredContent : isPlainObject(output) ? output : undefined;
  if (structured !== undefined || registry.get(name).outputSchema) {
    const checked = await registry.validateOutput(name, structured);
    if (!checked.ok) return { ok: false, error: { code: 'TOOL_FAILED', message: checked.message } };
    structured = checked.output as Record<string, unknown> | undefined;
  }
  if (!rich) return { ok: true, output: structured ?? output };
  const problem = contentProblem(output.content);
  if (problem)
    return { ok: false, error: { code: 'TOOL_FAILED', message: `tool "${name}" returned ${problem}` } };
  const content = [...output.content];
  return { ok: true, output: structured ?? contentToText(content), content };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
