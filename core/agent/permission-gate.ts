import { describeVerdict, type Policy } from '../permissions.ts';
import { RunHandedOver } from '../runs/run-handed-over.ts';
import type { ToolResult } from '../tools/execute.ts';
import type { Registry } from '../tools/registry.ts';
import type { Tool } from '../tools/tool.ts';
import type { ToolCallContext } from './agent-hooks.ts';
import type { ApprovalRecord, Approvals } from './approvals.ts';
import { askInRun } from './ask-in-run.ts';
import type { AgentEvent } from './events.ts';

/** @internal */
export interface GateDeps {
  policy: Policy;
  approvals: Approvals;
  registry: Registry;
  /**
   * Set when nobody can answer an approval for this call (an MCP client that cannot elicit, with no
   * HubOS server to decide it): an `ask` is refused at once, `"<tool>" needs approval (<rule>), and `
   * followed by this, instead of waiting.
   */
  approvalUnavailable?: string;
}

/** What the policy said of one call: its decision and the rule that decided. */
export interface ToolPermission {
  decision: 'allow' | 'ask' | 'deny';
  rule?: string;
}

const refused = (message: string): ToolResult => ({ ok: false, error: { code: 'TOOL_DENIED', message } });

/**
 * Applies the permission policy to one call before anything else sees it: undefined lets it run;
 * otherwise the error result the model reads instead. An `ask` waits here — only this call: the
 * other calls of the turn run on.
 * @internal
 */
export async function gateToolCall(
  deps: GateDeps,
  ctx: ToolCallContext,
  tool: Tool,
  emit: (event: AgentEvent) => void,
  onVerdict?: (verdict: ToolPermission) => void,
): Promise<ToolResult | undefined> {
  const verdict = deps.policy.decide(tool);
  // A verdict no rule made (allow by default) is left unsaid: most calls of most runs.
  if (onVerdict && (verdict.rule !== undefined || verdict.decision !== 'allow'))
    onVerdict(
      verdict.rule === undefined
        ? { decision: verdict.decision }
        : { decision: verdict.decision, rule: verdict.rule },
    );
  if (verdict.decision === 'allow') return undefined;
  if (verdict.decision === 'deny') return refused(`permission denied: ${describeVerdict(verdict, tool)}`);
  if (deps.approvalUnavailable !== undefined)
    return refused(
      `"${tool.name}" needs approval (${describeVerdict(verdict, tool)}), and ${deps.approvalUnavailable}`,
    );
  // Nobody should be asked about a call that could not run anyway.
  const checked = deps.registry.checkInput(tool.name, ctx.call.input);
  if (!checked.ok) return { ok: false, error: { code: 'TOOL_INPUT_INVALID', message: checked.message } };
  const { run, step, call } = ctx;
  const final = await askInRun(
    { approvals: deps.approvals, approvalTimeoutMs: deps.policy.approvalTimeoutMs },
    run,
    step,
    {
      callId: call.id,
      tool: tool.name,
      input: checked.input,
      permissions: [...(tool.permissions ?? [])],
      ...(verdict.rule ? { rule: verdict.rule } : {}),
    },
    run.signal,
    emit,
  );
  // Taken over by another instance, which waits on this same request: nothing of it is said here
  // (a refusal would reach the session beside the new holder's real result).
  if (run.signal.reason instanceof RunHandedOver) throw run.signal.reason;
  return outcome(final, deps.policy.approvalTimeoutMs);
}

function outcome(final: ApprovalRecord, timeoutMs: number): ToolResult | undefined {
  switch (final.status) {
    case 'approved':
      return undefined;
    case 'denied':
      return refused(`denied by the user${final.reason ? `: ${final.reason}` : ''}`);
    case 'expired':
      return refused(
        `approval timed out: nobody approved the call to "${final.tool}" within ${formatMs(timeoutMs)}, so it was not run`,
      );
    default:
      return refused('the run was cancelled while the call waited for approval');
  }
}

function formatMs(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}
