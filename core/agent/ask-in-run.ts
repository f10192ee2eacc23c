import type { RunContext } from './agent-hooks.ts';
import type { ApprovalRecord, ApprovalRequest, Approvals } from './approvals.ts';
import type { AgentEvent } from './events.ts';

/** What the run asks its human about: a call (permission) or a tool's question. */
export type RunAsk = Pick<ApprovalRequest, 'callId' | 'tool' | 'input' | 'permissions' | 'rule' | 'question'>;

/**
 * Asks the run's human and waits: the request is stored, announced as an `approval-request` event
 * once stored, and its outcome as an `approval-result` event. Resolves with the final record.
 * @internal
 */
export async function askInRun(
  deps: { approvals: Approvals; approvalTimeoutMs: number },
  run: RunContext,
  step: number,
  ask: RunAsk,
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
): Promise<ApprovalRecord> {
  const { callId, tool } = ask;
  // A resumed run's call that was waiting: the approval already stored is the one to wait for.
  const stored = run.resumedCalls?.has(callId) ? await deps.approvals.get(run.runId, callId) : undefined;
  const final = await deps.approvals.request(
    {
      runId: run.runId,
      agent: run.agent,
      ...(run.sessionId !== undefined ? { sessionId: run.sessionId } : {}),
      ...(run.principal !== undefined ? { principal: run.principal } : {}),
      step,
      ...ask,
    },
    {
      signal,
      timeoutMs: deps.approvalTimeoutMs,
      ...(stored ? { adopt: stored } : {}),
      onOpen: (record) =>
        emit({
          type: 'approval-request',
          runId: run.runId,
          step,
          callId,
          tool,
          input: record.input,
          permissions: record.permissions,
          ...(record.rule ? { rule: record.rule } : {}),
          ...(record.question ? { question: record.question } : {}),
          expiresAt: record.expiresAt,
        }),
    },
  );
  emit({
    type: 'approval-result',
    runId: run.runId,
    step,
    callId,
    tool,
    approved: final.status === 'approved',
    status: final.status as Exclude<ApprovalRecord['status'], 'pending'>,
    ...(final.reason ? { reason: final.reason } : {}),
    ...(final.answer ? { answer: final.answer } : {}),
    ...(final.decidedBy ? { decidedBy: final.decidedBy } : {}),
    ...(final.decidedAt ? { decidedAt: final.decidedAt } : {}),
    ...(final.question ? { question: true } : {}),
  });
  return final;
}
