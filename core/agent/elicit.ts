import { checkElicitRequest, type ElicitRequest, type ElicitResult } from '../tools/interaction.ts';
import type { ToolCallContext } from './agent-hooks.ts';
import { askInRun } from './ask-in-run.ts';
import type { AgentEvent } from './events.ts';
import type { GateDeps } from './permission-gate.ts';

/**
 * A tool's question to the run's human (`tc.elicit`), asked as an approval request that carries
 * it: whoever answers the run's approvals (the page, REST, AG-UI, A2A, the CLI) answers it. Its id
 * is the call's with `.ask-<n>`, so a call may ask several times. Workflows ask their tool steps'
 * questions here too.
 * @internal
 */
export async function elicitInRun(
  deps: GateDeps,
  ctx: ToolCallContext,
  n: number,
  request: ElicitRequest,
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
): Promise<ElicitResult> {
  checkElicitRequest(request);
  const { run, step, call } = ctx;
  const callId = `${call.id}.ask-${n}`;
  const question = { message: request.message, schema: request.schema };
  const final = await askInRun(
    { approvals: deps.approvals, approvalTimeoutMs: deps.policy.approvalTimeoutMs },
    run,
    step,
    { callId, tool: call.name, input: call.input, permissions: [], question },
    signal,
    emit,
  );
  switch (final.status) {
    case 'approved':
      return { action: 'accept', content: final.answer ?? {} };
    case 'denied':
      return { action: 'decline', ...(final.reason ? { reason: final.reason } : {}) };
    case 'expired':
      return { action: 'cancel', reason: `nobody answered within ${deps.policy.approvalTimeoutMs} ms` };
    default:
      return { action: 'cancel', reason: final.reason ?? 'the run ended before an answer came' };
  }
}
